// What a client does after a socket ends, as states.js decides it: reconnect after the backoff, ask the
// server why the socket never opened, ask the app for a new token, start over on a replaced canvas, or
// stop with a problem in words. `enter(state, problem)` sets the client's state.

import { probeAccess, socketAt } from './api.js';
import { afterClose, afterProbe, goneStates } from './states.js';

/** A socket of `client` ended (`{code, opened, token}`, from its Link). */
export function afterEnd(client, { code, opened, token }, enter) {
  client.connection += 1;
  client.catchUpTo = null;
  follow(client, afterClose({ code, opened, welcomed: client.role !== null, tokenChanged: client.token !== token }), enter);
}

/** Carries out what `afterClose` or `afterProbe` decided. */
function follow(client, { state, problem, then }, enter) {
  const link = client.link;
  if (then === 'stop' || then === 'refresh') link.closed = true;
  if (goneStates.has(state)) dropUnsent(client);
  if (then === 'fresh') startOver(client);
  if (state) enter(state, problem);
  if (link.closed && then !== 'refresh') return;
  if (then === 'backoff') link.reopenAfter(client.policy.nextDelay(client.random()), () => client.connect());
  else if (then === 'probe') probe(client, enter);
  else if (then === 'now' || then === 'fresh') client.connect();
  else if (then === 'refresh') refresh(client);
}

/** A socket closed without opening: asks the server whether the token or the origin is refused. */
async function probe(client, enter) {
  const connection = client.connection, token = client.token;
  const outcome = client.api ? await probeAccess(client.api, client.canvas, client.connectTimeout) : { status: 0 };
  // Closed meanwhile, or already connecting again (a new token): this answer is out of date.
  if (client.link.closed || client.link.socket || client.connection !== connection) return;
  if (outcome.moved) client.url = socketAt(outcome.moved, client.canvas, client.url);
  follow(client, client.token === token ? afterProbe(outcome) : { state: 'offline', problem: null, then: 'now' }, enter);
}

/** The token expired: asks the app for a new one (after the backoff's delay, so a bad one is not hammered). */
function refresh(client) {
  if (!client.refreshToken) return;
  const expired = client.token;
  client.link.later(client.policy.nextDelay(client.random()) * 1000, async () => {
    let token = null;
    try { token = await client.refreshToken(); } catch { token = null; }
    if (client.state !== 'expired' || client.token !== expired) return;
    if (typeof token === 'string' && token !== '') client.setToken(token);
  });
}

/** The canvas is gone for this client: what it did not get answered can never be. */
function dropUnsent(client) {
  client.pending.ops.splice(0);
  client.offlineEdits.clear();
  for (const g of client.gestures) g.ended = true;
  client.gestures.clear();
}

/** The canvas was replaced by an import: start over on it, with none of what was pending. */
function startOver(client) {
  const dropped = client.pending.ops.length;
  dropUnsent(client);
  client.replica.seq = -1;
  client.replica.epoch = null;
  client.replica.liveBase.clear();
  client.policy.connected();
  client.emit('replaced', { dropped });
}
