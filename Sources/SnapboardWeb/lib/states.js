// What the client does when a connection ends, and when the server says why one never opened: pure
// decisions (no socket, no timers) that SnapboardClient carries out.

import { CLOSE_CANVAS_DELETED, CLOSE_CANVAS_REPLACED, CLOSE_STORAGE_FULL, CLOSE_TOKEN_EXPIRED } from './protocol.js';

/** States that stop reconnecting: the same attempt again would be refused, or the client was closed. */
export const stoppedStates = new Set(['unauthorized', 'forbidden', 'expired', 'deleted', 'not_found', 'storage_full', 'closed']);

/** Stopped states that a new token can end (`setToken`). */
export const authStates = new Set(['unauthorized', 'expired']);

/** Stopped states that end the canvas for this client: what it had not sent can never go. */
export const goneStates = new Set(['deleted', 'not_found', 'storage_full']);

/**
 * What to do after a socket closed. `code`: the close code (undefined when it never closed cleanly);
 * `opened`: the socket opened; `welcomed`: this client ever had a welcome; `tokenChanged`: the token is
 * no longer the one this socket was opened with.
 *
 * Returns `{state, problem, then}`: the next state (null: unchanged until the probe answers), a problem
 * code or null, and what to do next: 'backoff' (reconnect after the policy's delay), 'probe' (ask the
 * server why, then decide), 'now' (reconnect at once), 'fresh' (reconnect at once without since, the
 * pending ops dropped), 'refresh' (ask the app for a new token) or 'stop'.
 */
export function afterClose({ code, opened, welcomed, tokenChanged }) {
  switch (code) {
    case CLOSE_TOKEN_EXPIRED:
      // A token set while this session ran replaces the one that expired.
      return tokenChanged ? { state: 'offline', problem: null, then: 'now' } : { state: 'expired', problem: 'token_expired', then: 'refresh' };
    case CLOSE_CANVAS_DELETED:
      // Before any welcome, 4004 is a viewer's join of a canvas that is not stored (P1).
      return welcomed ? { state: 'deleted', problem: 'canvas_deleted', then: 'stop' } : { state: 'not_found', problem: 'viewer_cannot_create', then: 'stop' };
    case CLOSE_CANVAS_REPLACED:
      return { state: 'connecting', problem: null, then: 'fresh' };
    case CLOSE_STORAGE_FULL:
      return { state: 'storage_full', problem: 'storage_full', then: 'stop' };
    default:
      // A browser does not tell why an upgrade was refused: the access probe asks the server.
      return opened ? { state: 'offline', problem: null, then: 'backoff' } : { state: null, problem: null, then: 'probe' };
  }
}

/**
 * What to do once the access probe (`GET /v1/canvases/{id}/access`) answered after a socket that never
 * opened: `status` is its HTTP status (0: no answer), `reason` the 401 or 403 body's `reason`. A refusal
 * of the token or the origin stops; a canvas served by another node now (`moved`, a cluster's 307)
 * reconnects there at once; anything else (the server down, busy, or older than the probe) is a drop,
 * and the backoff goes on.
 */
export function afterProbe({ status, reason, moved }) {
  if (moved) return { state: 'offline', problem: null, then: 'now' };
  if (status === 401) {
    if (reason === 'expired') return { state: 'expired', problem: 'expired', then: 'refresh' };
    return { state: 'unauthorized', problem: reason || 'unauthorized', then: 'stop' };
  }
  if (status === 403) return { state: 'forbidden', problem: reason === 'origin' ? 'origin' : 'forbidden', then: 'stop' };
  return { state: 'offline', problem: null, then: 'backoff' };
}
