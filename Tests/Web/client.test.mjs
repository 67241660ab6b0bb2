// The JavaScript client library against the real snapboard-server, over Node's WebSocket.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SnapboardClient } from '../../Sources/SnapboardWeb/lib/index.js';
import { execFileSync } from 'node:child_process';
import { get, serverBinary, startServer, until } from './support.mjs';

/** Node's WebSocket, counting what the library sends. */
class CountingSocket extends WebSocket {
  static sent = [];
  send(text) {
    CountingSocket.sent.push(JSON.parse(text));
    super.send(text);
  }
}

const clients = [];
const open = (server, canvas, name, extra = {}) => {
  const client = new SnapboardClient({ url: server.ws(canvas), name, WebSocket: CountingSocket, pingInterval: 0, ...extra });
  client.connect();
  clients.push(client);
  return client;
};
const connected = (client) => until(`${client.name} connected`, () => client.state === 'connected');
const answered = (client) => until(`${client.name}'s ops answered`, () => client.pending.ops.length === 0);

let server;
const servers = [];
before(async () => { server = await startServer(); servers.push(server); });
// Whatever a failed test left open: its clients would reconnect forever, and its servers keep running.
after(async () => {
  for (const client of clients) client.close();
  for (const s of servers) await s.stop();
});

test('two clients share a canvas: snaps, acks, presence colours and cursors', async () => {
  const ann = open(server, 'lib-share', 'ann'), ben = open(server, 'lib-share', 'ben');
  await Promise.all([connected(ann), connected(ben)]);
  const acks = [];
  ann.on('ack', (m) => acks.push(m));
  const id = ann.snap(100, 100, { kind: 'star', points: 6 });
  await until('the ack', () => acks.find((m) => m.id === id));
  await until('ben sees the star', () => [...ben.replica.shapes.values()].find((s) => s.kind === 'star'));
  const star = [...ben.replica.shapes.values()].find((s) => s.kind === 'star');
  assert.deepEqual([star.x, star.y], [96, 96], 'snapped by the server to the grid (pitch 32)');
  await until('ben sees ann in presence', () => [...ben.replica.sessions.values()].some((s) => s.name === 'ann' && /^#[0-9a-f]{6}$/.test(s.color)));
  ann.cursor(321, 123);
  await until("ann's cursor at ben", () => ben.replica.cursors.get(ann.replica.session)?.x === 321);
  ann.close();
  await until("ann's cursor gone when she leaves", () => !ben.replica.cursors.has(ann.replica.session));
  ben.close();
});

test('a gesture sends at most one update per frame, and its end commits where the server put it', async () => {
  const ann = open(server, 'lib-gesture', 'ann');
  await connected(ann);
  ann.snap(320, 320, { kind: 'roundedRect' });
  await answered(ann);
  const shapeId = [...ann.replica.shapes.keys()][0];
  CountingSocket.sent.length = 0;
  const g = ann.gesture('move', shapeId);
  for (let i = 1; i <= 60; i++) g.update({ dx: i, dy: i / 2 });
  await new Promise((r) => setTimeout(r, 60));
  const updates = CountingSocket.sent.filter((m) => m.phase === 'update');
  assert.ok(updates.length >= 1 && updates.length <= 2, `60 pointer events in one frame send ${updates.length} updates`);
  assert.deepEqual([updates.at(-1).dx, updates.at(-1).dy], [60, 30], 'the latest parameters win');
  g.end();
  await answered(ann);
  const { body } = await get(server, '/v1/canvases/lib-gesture');
  const moved = body.shapes.find((s) => s.id === shapeId);
  assert.deepEqual([moved.x, moved.y], [ann.replica.shapes.get(shapeId).x, ann.replica.shapes.get(shapeId).y]);
  assert.ok(moved.x > 320, 'it moved');
  ann.close();
});

test('edits made offline are sent when the server is back, exactly once, and nothing acked is lost', async () => {
  const own = await startServer();
  servers.push(own);
  const ann = open(own, 'lib-offline', 'ann');
  await connected(ann);
  ann.snap(320, 320, { kind: 'oval', w: 40, h: 40 });
  await answered(ann);
  const first = [...ann.replica.shapes.keys()][0];
  // A drag begun online that ends offline, then a new shape and a whole move made offline.
  const drag = ann.gesture('move', first);
  drag.update({ dx: 64, dy: 0 });
  await until('the update is sent', () => CountingSocket.sent.some((m) => m.phase === 'update' && m.dx === 64));
  await new Promise((r) => setTimeout(r, 50));
  await own.kill();
  await until('offline', () => ann.state === 'offline');
  drag.update({ dx: 128, dy: 0 });
  drag.end();
  ann.snap(640, 320, { kind: 'triangle' });
  assert.equal(ann.pending.ops.length, 2, 'both edits wait');
  assert.equal(ann.drawingOrder().find((s) => s.id === first).x, 320 + 128, 'the offline drag shows where it was put');
  const again = await startServer({ port: own.port, data: own.dataPath });
  servers.push(again);
  await until('reconnected', () => ann.state === 'connected', 20000);
  await answered(ann);
  const { body } = await get(again, '/v1/canvases/lib-offline');
  assert.equal(body.shapes.length, 2, 'the offline snap committed once');
  assert.equal(body.shapes.find((s) => s.id === first).x, 448, 'the drag ended 128 units on, on the grid');
  ann.close();
  await again.stop();
  await own.stop();
});

test('a connection that never opens nor fails is given up after connectTimeout and tried again', async () => {
  let made = 0;
  /** The first socket hangs in CONNECTING with no events at all; the next ones are real. */
  class StuckOnce {
    constructor(url) {
      made += 1;
      if (made > 1) return new CountingSocket(url);
      this.readyState = 0;
    }
    send() { throw new Error('not open'); }
    close() {}
  }
  const ann = open(server, 'lib-stuck', 'ann', { WebSocket: StuckOnce, connectTimeout: 0.3 });
  await connected(ann);
  assert.equal(made, 2, 'one attempt given up, the next one connected');
  ann.close();
});

test('the pages and files are served with their type, an ETag that revalidates, no-cache and a strict CSP', async () => {
  const page = await get(server, '/c/team-retro');
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(page.headers.get('content-security-policy'), /default-src 'none'; script-src 'self'/);
  assert.equal(page.headers.get('cache-control'), 'no-cache');
  assert.match(page.body, /board\.js/);
  const start = await get(server, '/');
  assert.match(start.body, /start\.js/);
  const library = await get(server, '/web/snapboard.js');
  assert.equal(library.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(library.headers.get('content-security-policy'), null, 'only pages carry the policy');
  const etag = library.headers.get('etag');
  assert.match(etag, /^"[0-9a-f]+"$/);
  const again = await get(server, '/web/snapboard.js', { 'If-None-Match': etag });
  assert.equal(again.status, 304);
  assert.equal(again.body, '');
  assert.equal((await get(server, '/web/snapboard.js', { 'If-None-Match': '"stale"' })).status, 200);
  // The library is served as it is in Sources/SnapboardWeb/lib/, and at the addresses apps imported it from.
  const entry = await get(server, '/web/lib/index.js');
  assert.equal(entry.status, 200);
  assert.equal(library.body, entry.body, '/web/snapboard.js is lib/index.js');
  assert.equal((await get(server, '/web/geometry.js')).body, (await get(server, '/web/lib/geometry.js')).body);
  assert.match((await get(server, '/web/page/board.js')).body, /from '\.\.\/lib\/index\.js'/, 'the page imports the served library');
  assert.equal((await get(server, '/web/page/style.css')).headers.get('content-type'), 'text/css; charset=utf-8');
  for (const path of ['/c/not%20valid', '/c/', '/web/', '/web/.hidden', '/web/missing.js', '/nowhere',
    '/web/lib/', '/web/lib/.hidden', '/web/lib/missing.js', '/web/other/index.js', '/web/lib/x/index.js', '/web/page']) {
    assert.equal((await get(server, path)).status, 404, path);
  }
});

test('on a server that requires tokens the token opens the canvas, and its expiry ends the session for good', async () => {
  const secret = 'a-web-test-secret-of-more-than-32-bytes';
  const own = await startServer({ args: ['--auth-secret', secret] });
  servers.push(own);
  const mint = (ttl, sub) => execFileSync(serverBinary, ['token', '--canvas', 'keyed', '--ttl', ttl, '--sub', sub, '--secret', secret]).toString().trim();
  const ann = open(own, 'keyed', 'ann', { token: mint('2s', 'ann-id') });
  await connected(ann);
  assert.equal([...ann.replica.sessions.values()][0].user, 'ann-id');
  const states = [];
  ann.on('state', (state) => states.push(state));
  await until('the expired state', () => ann.state === 'expired', 8000);
  assert.deepEqual(states, ['expired']);
  assert.equal(ann.link.timers.length, 0, 'no reconnect with the expired token');
  assert.deepEqual([ann.canEdit, ann.problem.code], [false, 'token_expired']);
  // No token: the handshake is refused (401); the access probe says why, and the client stops.
  const none = open(own, 'keyed', 'nobody');
  await until('the unauthorized state', () => none.state === 'unauthorized');
  assert.equal(none.problem.code, 'missing');
  assert.equal(none.link.timers.length, 0);
  none.close();
  assert.equal((await get(own, '/v1/canvases/keyed')).status, 401);
  assert.equal((await get(own, '/v1/canvases/keyed', { Authorization: `Bearer ${mint('1m', 'ops')}` })).status, 200);
});

test('a deleted canvas ends the session for good, and says so (a replaced one: library-states.test.mjs)', async () => {
  const ann = open(server, 'doomed', 'ann');
  await connected(ann);
  const states = [];
  ann.on('state', (state) => states.push(state));
  const removed = await fetch(`${server.http}/v1/canvases/doomed`, { method: 'DELETE' });
  assert.equal(removed.status, 204);
  await until('the deleted state', () => ann.state === 'deleted', 5000);
  assert.deepEqual(states, ['deleted']);
  assert.equal(ann.link.timers.length, 0, 'no reconnect to a deleted canvas');
  assert.equal(ann.problem.code, 'canvas_deleted');
});

/** A port nothing listens on: a socket opened to it is refused at once. */
async function refusedPort() {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test('after a server restart a resumed client keeps no cursor, name or lease of the old sessions: the server numbers sessions from 1 again', async () => {
  const own = await startServer();
  servers.push(own);
  const nowhere = `ws://127.0.0.1:${await refusedPort()}/`;
  /** Ann's sockets: while `held`, each goes to a port that refuses it, so she reconnects after the others. */
  class Held extends CountingSocket {
    static held = false;
    constructor(url) { super(Held.held ? nowhere : url); }
  }
  const ann = open(own, 'lib-restart', 'ann', { WebSocket: Held });
  await connected(ann);
  const ben = open(own, 'lib-restart', 'ben');
  await connected(ben);
  const cy = open(own, 'lib-restart', 'cy');
  await connected(cy);
  // A commit, so that the canvas is stored and the restarted server resumes everyone.
  ann.snap(900, 100);
  await answered(ann);
  ben.cursor(100, 100);
  cy.cursor(500, 500);
  await until("ben's and cy's cursors at ann", () => ann.replica.cursors.size === 2);
  const before = new Map([...ann.replica.sessions].map(([id, who]) => [who.name, id]));
  assert.deepEqual([before.get('ann'), before.get('ben'), before.get('cy')], [1, 2, 3], 'sessions numbered in the order they joined');

  Held.held = true;
  await own.kill();
  await until('all three offline', () => [ann, ben, cy].every((c) => c.state === 'offline'));
  const again = await startServer({ port: own.port, data: own.dataPath });
  servers.push(again);
  // Ben and cy come back first and take sessions 1 and 2; ann comes back last, as session 3 (cy's old id).
  await until('ben and cy back, and each sees the other', () => [ben, cy].every((c) => c.state === 'connected' && c.replica.sessions.size === 2), 20000);
  const welcomes = [];
  ann.on('welcome', (change) => welcomes.push(change));
  Held.held = false;
  await until('ann back', () => ann.state === 'connected', 20000);
  assert.deepEqual(welcomes, [{ kind: 'welcome', resumed: true }], 'ann resumed');
  const names = new Map([...ann.replica.sessions].map(([id, who]) => [id, who.name]));
  assert.equal(names.get(ann.replica.session), 'ann');
  assert.deepEqual([...names.values()].sort(), ['ann', 'ben', 'cy'], 'the sessions as the new server lists them');
  assert.deepEqual([...ann.replica.cursors], [], "no cursor of the old sessions: ben's would now be labelled with someone else's name");
  assert.deepEqual(ann.replica.leases, {});

  // Cursors come again from the new sessions, each under its own name.
  ben.cursor(200, 300);
  await until("ben's new cursor at ann", () => ann.replica.cursors.size > 0);
  assert.deepEqual([...ann.replica.cursors].map(([id, at]) => [names.get(id), at]), [['ben', { x: 200, y: 300 }]]);
  for (const c of [ann, ben, cy]) c.close();
});
