// The library's states: what it decides when a connection ends or never opens (pure tables), what it says
// in words, and what a client does with a socket and a fetch the test drives: probe, refresh, stop,
// start over, roles that may not edit, nudges and offline snaps. Then the same against the real server.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { bounds, predictSnap, problemFor, SnapboardClient } from '../../Sources/SnapboardWeb/lib/index.js';
import { problemCodes } from '../../Sources/SnapboardWeb/lib/problems.js';
import { afterClose, afterProbe, stoppedStates } from '../../Sources/SnapboardWeb/lib/states.js';
import { get, send, serverBinary, startServer, until, watch } from './support.mjs';

const shape = (id, extra = {}) => ({ id, kind: 'dot', x: 48, y: 48, w: 24, h: 24, scale: 1, rotation: 0, fill: { h: 0, s: 0, b: 0, a: 1 }, hatch: 'none', z: 0, ...extra });
const welcome = (extra = {}) => ({ type: 'welcome', protocol: 1, revision: 4, session: 1, canvas: 't', seq: 3, epoch: '00000000000000e1', resumed: false,
  grid: { width: 320, height: 320, x: { pitch: 32 }, y: { pitch: 32 } }, snapping: { threshold: 5 }, shapes: [shape('a'), shape('b', { x: 96, z: 1 })],
  sessions: [{ session: 1, name: 'ann', color: '#112233' }], leases: {}, ...extra });
/** An unsigned JWT with these claims: the library reads `role` from it, never its signature. */
const jwt = (claims) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.x`;

/** Sockets the test opens, drops and speaks for; and a fetch that answers the access probe as told. */
function fakes({ access = () => ({ status: 200, body: { role: 'editor' } }) } = {}) {
  const sockets = [], requests = [];
  class Socket {
    constructor(url) { Object.assign(this, { url: new URL(url), readyState: 0, sent: [], closedWith: null }); sockets.push(this); }
    /** The upgrade succeeded, and the server's first messages arrive. */
    open(...messages) { this.readyState = 1; this.onopen?.({}); for (const m of messages) this.onmessage({ data: JSON.stringify(m) }); }
    send(text) { this.sent.push(JSON.parse(text)); }
    /** As the WebSocket API: a page may close with 1000 or 3000–4999 only. */
    close(code) {
      if (code !== undefined && code !== 1000 && !(code >= 3000 && code <= 4999)) throw new DOMException('The code must be either 1000, or between 3000 and 4999.', 'InvalidAccessError');
      this.closedWith = code;
      this.readyState = 3;
    }
    /** The server closed it (or, never opened, refused it, as a browser says so). */
    drop(code = 1006) { this.readyState = 3; this.onclose({ code }); }
    /** A refused upgrade as Node 20 says so: an error, no close, and the socket left connecting. */
    fail() { this.onerror({}); }
  }
  const fetch = async (url, init) => {
    requests.push({ url: String(url), init });
    const answer = await access(url, init);
    if (answer instanceof Error) throw answer;
    return new Response(JSON.stringify(answer.body ?? {}), { status: answer.status, headers: { 'content-type': 'application/json' } });
  };
  return { sockets, requests, Socket, fetch, last: () => sockets.at(-1) };
}

const made = [];
after(() => { for (const c of made) c.close(); });
function client(f, extra = {}) {
  const c = new SnapboardClient({ url: 'ws://board.test:8080/v1/canvases/t', name: 'ann', WebSocket: f.Socket, fetch: f.fetch, schedule: (fn) => fn(),
    random: () => 0, pingInterval: 0, ...extra });
  made.push(c);
  c.connect();
  return c;
}
const ops = (socket) => socket.sent.filter((m) => m.type === 'op');

describe('decisions (pure)', () => {
  const closes = [
    [{ code: 1006, opened: true, welcomed: true }, 'offline', null, 'backoff'],
    [{ code: 1001, opened: true, welcomed: true }, 'offline', null, 'backoff'],
    [{ code: 4000, opened: true, welcomed: true }, 'offline', null, 'backoff'],
    [{ code: 1006, opened: false, welcomed: true }, null, null, 'probe'],
    [{ code: undefined, opened: false, welcomed: false }, null, null, 'probe'],
    [{ code: 4001, opened: true, welcomed: true }, 'expired', 'token_expired', 'refresh'],
    [{ code: 4001, opened: true, welcomed: true, tokenChanged: true }, 'offline', null, 'now'],
    [{ code: 4004, opened: true, welcomed: true }, 'deleted', 'canvas_deleted', 'stop'],
    [{ code: 4004, opened: true, welcomed: false }, 'not_found', 'viewer_cannot_create', 'stop'],
    [{ code: 4005, opened: true, welcomed: true }, 'connecting', null, 'fresh'],
    [{ code: 4507, opened: true, welcomed: false }, 'storage_full', 'storage_full', 'stop'],
  ];
  for (const [input, state, problem, then] of closes) {
    test(`a close ${JSON.stringify(input)} leads to ${state ?? 'the probe'} and ${then}`, () => {
      assert.deepEqual(afterClose(input), { state, problem, then });
    });
  }
  const probes = [
    [{ status: 401, reason: 'missing' }, 'unauthorized', 'missing', 'stop'],
    [{ status: 401, reason: 'wrong_canvas' }, 'unauthorized', 'wrong_canvas', 'stop'],
    [{ status: 401, reason: 'expired' }, 'expired', 'expired', 'refresh'],
    [{ status: 401 }, 'unauthorized', 'unauthorized', 'stop'],
    [{ status: 403, reason: 'origin' }, 'forbidden', 'origin', 'stop'],
    [{ status: 403, reason: 'host' }, 'forbidden', 'forbidden', 'stop'],
    [{ status: 200 }, 'offline', null, 'backoff'],
    [{ status: 404 }, 'offline', null, 'backoff'],
    [{ status: 429 }, 'offline', null, 'backoff'],
    [{ status: 503 }, 'offline', null, 'backoff'],
    [{ status: 0 }, 'offline', null, 'backoff'],
    [{ status: 200, moved: 'http://proxy/n/node2' }, 'offline', null, 'now'],
  ];
  for (const [input, state, problem, then] of probes) {
    test(`an access probe answered ${JSON.stringify(input)} leads to ${state} and ${then}`, () => {
      assert.deepEqual(afterProbe(input), { state, problem, then });
    });
  }

  test('every problem the contract names has its own words, which say what is wrong and what to do', () => {
    const contract = ['missing', 'malformed', 'bad_signature', 'expired', 'not_yet_valid', 'wrong_canvas', 'wrong_audience', 'wrong_issuer',
      'origin', 'token_expired', 'canvas_deleted', 'viewer_cannot_create', 'storage_full'];
    for (const code of contract) assert.ok(problemCodes.includes(code), `no words for ${code}`);
    const messages = problemCodes.map((code) => problemFor(code).message);
    assert.equal(new Set(messages).size, messages.length, 'each problem in words of its own');
    for (const [i, m] of messages.entries()) {
      assert.match(m, /^[A-Z].*\.$/, `${problemCodes[i]}: a sentence`);
      assert.match(m, /\b(Ask|Open|Check|Reload)\b/, `${problemCodes[i]} says what to do: ${m}`);
    }
    assert.deepEqual(problemFor('expired'), { code: 'expired', message: 'Your access link has expired. Ask the canvas owner for a new link.' });
    assert.deepEqual(problemFor('some_new_reason'), { code: 'some_new_reason', message: problemFor('unauthorized').message });
  });
});

describe('a client driven by a fake socket and fetch', () => {
  test('a socket refused before opening is explained by the access probe, with the token as Bearer over http(s)', async () => {
    for (const [url, base] of [['ws://board.test:8080/v1/canvases/t', 'http://board.test:8080'], ['wss://board.test/sub/v1/canvases/t%2D1', 'https://board.test/sub']]) {
      const f = fakes({ access: () => ({ status: 401, body: { error: 'unauthorized', reason: 'wrong_canvas', message: 'no' } }) });
      const c = client(f, { url, token: 'tok' });
      const states = [];
      c.on('state', (s) => states.push(s));
      f.last().drop(1006);
      await until('the probe answered', () => c.state === 'unauthorized');
      assert.equal(f.requests.length, 1);
      assert.equal(f.requests[0].url, `${base}/v1/canvases/${url.endsWith('t%2D1') ? 't-1' : 't'}/access`);
      assert.equal(f.requests[0].init.headers.authorization, 'Bearer tok');
      assert.deepEqual(states, ['unauthorized'], 'no "offline" while the probe asks');
      assert.deepEqual(c.problem, problemFor('wrong_canvas'));
      assert.equal(c.link.timers.length, 0, 'no reconnect is scheduled');
      assert.equal(f.sockets.length, 1);
      assert.equal(c.canEdit, false);
    }
  });

  test('Node 20\'s refused upgrade (an error and no close) is probed too, and a later close of that socket counts for nothing', async () => {
    const f = fakes({ access: () => ({ status: 401, body: { reason: 'missing' } }) });
    const c = client(f);
    f.last().fail();
    assert.equal(f.last().readyState, 3, 'closed by the client');
    f.last().drop(1006);
    await until('unauthorized', () => c.state === 'unauthorized');
    assert.equal(f.requests.length, 1, 'one probe');
    assert.equal(c.problem.code, 'missing');
  });

  test('a probe that says nothing against the token (no server, 200, 503) keeps the backoff going', async () => {
    const answers = [new TypeError('fetch failed'), { status: 503, body: { error: 'busy' } }, { status: 200, body: { role: 'editor' } }];
    const f = fakes({ access: () => answers.shift() ?? { status: 200 } });
    const c = client(f);
    for (let n = 1; n <= 3; n++) {
      f.last().drop(1006);
      await until(`attempt ${n + 1}`, () => f.sockets.length === n + 1);
      assert.equal(c.problem, null);
    }
    assert.equal(c.state, 'offline');
    f.last().open(welcome({ role: 'editor' }));
    assert.equal(c.state, 'connected');
  });

  test('a refused origin stops with the origin problem; a token refused as expired asks refreshToken, and the new token connects', async () => {
    const origin = fakes({ access: () => ({ status: 403, body: { error: 'forbidden', reason: 'origin' } }) });
    const o = client(origin);
    origin.last().drop();
    await until('forbidden', () => o.state === 'forbidden');
    assert.equal(o.problem.code, 'origin');

    let asked = 0;
    const f = fakes({ access: (url, init) => (init.headers.authorization === 'Bearer old' ? { status: 401, body: { reason: 'expired' } } : { status: 200 }) });
    const c = client(f, { token: 'old', refreshToken: async () => { asked += 1; return 'new'; } });
    f.last().drop();
    await until('a second socket, with the new token', () => f.sockets.length === 2);
    assert.equal(asked, 1);
    assert.equal(f.last().url.searchParams.get('token'), 'new');
    assert.equal(c.state, 'connecting');
    assert.equal(c.problem, null, 'the problem went with the old token');
    assert.equal(c.api.token, 'new', 'the HTTP API follows the token');
  });

  test('4001 makes the board read-only; without refreshToken it waits for setToken, which reconnects with since', async () => {
    const f = fakes();
    const c = client(f, { token: jwt({ role: 'editor' }) });
    f.last().open(welcome());
    assert.equal(c.role, 'editor', 'an older welcome without role: the token\'s claim');
    assert.deepEqual([c.canEdit, c.stale], [true, false]);
    f.last().drop(4001);
    assert.equal(c.state, 'expired');
    assert.equal(c.problem.code, 'token_expired');
    assert.deepEqual([c.canEdit, c.stale], [false, true]);
    assert.equal(c.snap(10, 10), null, 'an expired client sends nothing');
    assert.equal(c.pending.ops.length, 0);
    assert.equal(c.link.timers.length, 0, 'nothing will reconnect by itself');
    c.setToken('fresh');
    assert.equal(f.sockets.length, 2);
    assert.equal(f.last().url.searchParams.get('token'), 'fresh');
    assert.equal(f.last().url.searchParams.get('since'), '3', 'it resumes');
    f.last().open(welcome({ resumed: true, role: 'editor' }));
    assert.deepEqual([c.state, c.problem, c.canEdit], ['connected', null, true]);
  });

  test('a token set during the session replaces the one that expires: 4001 then reconnects at once', () => {
    const f = fakes();
    const c = client(f, { token: 'first' });
    f.last().open(welcome({ role: 'editor' }));
    c.setToken('second');
    assert.equal(f.sockets.length, 1, 'a connected client keeps its session');
    f.last().drop(4001);
    assert.equal(f.sockets.length, 2);
    assert.equal(f.last().url.searchParams.get('token'), 'second');
    assert.notEqual(c.state, 'expired');
  });

  test('4004 after a welcome is a deleted canvas; before any welcome a viewer\'s canvas that is not there; 4507 storage full; each drops what was unsent', () => {
    const d = fakes();
    const deleted = client(d);
    d.last().open(welcome({ role: 'editor' }));
    d.last().drop(1006);
    deleted.snap(100, 100);
    assert.equal(deleted.pending.ops.length, 1);
    assert.equal(deleted.drawingOrder().length, 3, 'the offline snap is drawn');
    deleted.connect();
    d.last().drop(4004);
    assert.deepEqual([deleted.state, deleted.problem.code, deleted.pending.ops.length, deleted.drawingOrder().length], ['deleted', 'canvas_deleted', 0, 2]);
    assert.equal(deleted.link.timers.length, 0);

    const v = fakes();
    const viewer = client(v, { token: jwt({ role: 'viewer' }) });
    v.last().open();
    v.last().drop(4004);
    assert.deepEqual([viewer.state, viewer.problem.code], ['not_found', 'viewer_cannot_create']);
    assert.match(viewer.problem.message, /view-only link cannot create it/);

    const s = fakes();
    const full = client(s);
    s.last().open();
    s.last().drop(4507);
    assert.deepEqual([full.state, full.problem.code, full.link.timers.length], ['storage_full', 'storage_full', 0]);
  });

  test('4005: the replaced event, then a fresh connection without since, and what was pending is dropped', () => {
    const f = fakes();
    const c = client(f);
    f.last().open(welcome({ role: 'editor' }));
    const g = c.gesture('move', 'a');
    g.update({ dx: 5, dy: 0 });
    c.snap(200, 200);
    c.nudge(['b'], 32, 0);
    const replaced = [];
    c.on('replaced', (r) => replaced.push(r));
    f.last().drop(4005);
    assert.deepEqual(replaced, [{ dropped: 2 }]);
    assert.equal(f.sockets.length, 2, 'at once, no backoff');
    assert.equal(f.last().url.searchParams.get('since'), null);
    assert.equal(f.last().url.searchParams.get('epoch'), null);
    assert.equal(c.state, 'connecting');
    assert.equal(g.end({ dx: 9 }), null, 'a gesture on the old canvas is over');
    f.last().open(welcome({ role: 'editor', epoch: '00000000000000f2', seq: 1, shapes: [shape('z')] }));
    assert.deepEqual(ops(f.last()), [], 'nothing of the old canvas is resent');
    assert.deepEqual(c.drawingOrder().map((s) => s.id), ['z']);
  });

  test('close(1001), a code a page may not send, closes the socket with 1000 and ends in the closed state, with no reconnect', () => {
    const f = fakes();
    const c = client(f);
    f.last().open(welcome({ role: 'editor' }));
    c.close(1001);
    assert.equal(f.last().closedWith, 1000);
    assert.deepEqual([c.state, c.canEdit, c.stale, c.link.timers.length], ['closed', false, true, 0]);
    c.connect();
    assert.equal(c.state, 'connecting', 'connect() after close() starts again');
    assert.equal(f.sockets.length, 2);
  });

  test('a viewer sends nothing: no snaps, nudges, deletes or gesture ops, and its gestures draw nothing', () => {
    const f = fakes();
    const c = client(f);
    f.last().open(welcome({ role: 'viewer' }));
    assert.deepEqual([c.role, c.canEdit, c.stale], ['viewer', false, false]);
    const before = JSON.stringify(c.drawingOrder());
    assert.equal(c.snap(10, 10), null);
    assert.deepEqual(c.nudge(['a'], 32, 0), []);
    assert.equal(c.delete(['a']), null);
    assert.equal(c.undo(), null);
    const g = c.gesture('move', 'a');
    g.update({ dx: 50, dy: 50 });
    assert.equal(g.end({ dx: 60, dy: 60 }), null);
    f.last().drop(1006); // offline, a viewer's gesture is not drawn either
    const h = c.gesture('scale', 'b');
    h.update({ factor: 3 });
    assert.equal(JSON.stringify(c.drawingOrder()), before);
    h.end();
    assert.deepEqual(f.sockets[0].sent.filter((m) => m.type === 'op'), []);
    assert.equal(c.pending.ops.length, 0);
  });

  test('nudge sends one one-shot move per shape, exactly by (dx, dy), snap:false unless asked', () => {
    const f = fakes();
    const c = client(f);
    f.last().open(welcome({ role: 'editor' }));
    const ids = c.nudge(['a', 'b'], 32, 0);
    const snapped = c.nudge(new Set(['a']), 0, -320, { snap: true });
    assert.deepEqual(ops(f.last()), [
      { type: 'op', id: ids[0], op: 'move', shape: 'a', dx: 32, dy: 0, snap: false },
      { type: 'op', id: ids[1], op: 'move', shape: 'b', dx: 32, dy: 0, snap: false },
      { type: 'op', id: snapped[0], op: 'move', shape: 'a', dx: 0, dy: -320 },
    ]);
    assert.deepEqual(c.drawingOrder().map((s) => s.x), [48, 96], 'online, the server\'s answer moves them');
  });

  test('offline, nudges and snaps are drawn at once, sent on reconnecting, and replaced by the server\'s answer', () => {
    const f = fakes();
    const c = client(f);
    f.last().open(welcome({ role: 'editor' }));
    f.last().drop(1006);
    assert.deepEqual([c.state, c.stale, c.canEdit], ['offline', true, true]);
    c.nudge(['a'], 32, 0);
    c.nudge(['a'], 32, 0);
    const snapId = c.snap(203, 190, { kind: 'roundedRect', w: 64, h: 32 });
    const moved = c.nudge([snapId], 0, 32);
    const drawn = c.drawingOrder();
    assert.equal(drawn.find((s) => s.id === 'a').x, 48 + 64, 'two nudges add up');
    const predicted = drawn.at(-1);
    assert.deepEqual([predicted.id, predicted.kind, predicted.x, predicted.y, predicted.w, predicted.h, predicted.z], [snapId, 'roundedRect', 192, 192 + 32, 64, 32, 2],
      'the tap on the nearest grid point, on top, then nudged');
    assert.equal(moved.length, 1);
    c.connect();
    f.last().open(welcome({ role: 'editor', resumed: true }));
    const sent = ops(f.last());
    assert.deepEqual(sent.map((m) => [m.op, m.op === 'snap' ? m.shapeId : m.shape, m.dx, m.dy]), [['move', 'a', 32, 0], ['move', 'a', 32, 0], ['snap', snapId, undefined, undefined], ['move', snapId, 0, 32]]);
    const server = shape(snapId, { kind: 'roundedRect', x: 192, y: 224, w: 64, h: 32, z: 2 });
    for (const [i, m] of sent.entries()) {
      f.last().onmessage({ data: JSON.stringify([{ type: 'delta', seq: 4 + i, by: 1, ops: [m.id], shapes: i === 2 ? [{ ...server, y: 192 }] : i === 3 ? [server] : [shape('a', { x: 48 + 32 * (i + 1) })], events: [], live: false }, { type: 'ack', id: m.id, seq: 4 + i }]) });
    }
    assert.equal(c.offlineEdits.size, 0);
    assert.deepEqual(c.drawingOrder().map((s) => [s.id, s.x, s.y]), [['a', 112, 48], ['b', 96, 48], [snapId, 192, 224]]);
  });

  test('an offline nudge past the edge of a bounded canvas is drawn kept inside it, as the server keeps it; an unbounded one only by its centre', () => {
    for (const [bounded, x] of [[undefined, 12], [false, 0]]) {
      const f = fakes();
      const c = client(f);
      f.last().open(welcome({ role: 'editor', ...(bounded === undefined ? {} : { bounded }) }));
      f.last().drop(1006);
      c.nudge(['b'], -1000, 0);
      assert.equal(c.shapeAsDrawn('b').x, x);
      assert.equal(ops(f.sockets[0]).length, 0, 'sent once back online');
    }
  });

  test('a snap prediction follows the grid, keeps a bounded canvas\'s shapes inside it, and the server\'s default sizes', () => {
    const replica = { width: 320, height: 320, grid: { x: { pitch: 32 }, y: { divisions: 4 } }, bounded: true, shapes: new Map([['a', shape('a', { z: 7 })]]) };
    const dot = predictSnap(replica, { op: 'snap', x: 47, y: 130 }, 'p1');
    assert.deepEqual([dot.id, dot.kind, dot.x, dot.y, dot.w, dot.h, dot.z], ['p1', 'dot', 32, 160, 24, 24, 8]);
    const box = predictSnap(replica, { op: 'snap', x: 318, y: 2, shapeId: 'mine', shape: { kind: 'roundedRect', hatch: 'hatch' } }, 'p2');
    assert.deepEqual([box.id, box.x, box.y, box.w, box.h, box.hatch], ['mine', 260, 80, 120, 120, 'hatch'], 'kept inside');
    const star = predictSnap(replica, { op: 'snap', x: 318, y: 2, shape: { kind: 'star', points: 6 } }, 'p3');
    assert.ok(star.x > 260 && Math.abs(bounds(star).maxX - 320) < 1e-9, 'by its outline\'s bounds, not its frame');
    const loose = predictSnap({ ...replica, bounded: false }, { op: 'snap', x: 318, y: 2, shape: { kind: 'star' } }, 'p3');
    assert.deepEqual([loose.x, loose.y], [288, 80]);
  });

  test('on a layout canvas a snap is predicted in the free cell nearest the tap, fitted as the layout says; on a full one it is not drawn', () => {
    const layout = { mode: 'flexible', rows: 2, columns: 3, padding: 10, cellWidth: 100, cellHeight: 50 };
    const canvas = { width: 340, height: 130, grid: { x: { pitch: 32 }, y: { pitch: 32 } }, layout, bounded: true, shapes: new Map([['a', shape('a', { x: 170, y: 35 })]]) };
    const fitted = predictSnap(canvas, { op: 'snap', x: 175, y: 40, shape: { kind: 'roundedRect' } }, 'p');
    assert.deepEqual([fitted.x, fitted.y, fitted.w, fitted.h], [170, 95, 50, 50], 'the taken cell\'s nearest free one (below, 60 away, not beside, 110), aspect kept');
    const filled = predictSnap({ ...canvas, layout: { ...layout, fill: true } }, { op: 'snap', x: 20, y: 20, shape: { kind: 'oval' } }, 'p');
    assert.deepEqual([filled.x, filled.y, filled.w, filled.h], [60, 35, 100, 50]);
    const dot = predictSnap(canvas, { op: 'snap', x: 300, y: 120 }, 'p');
    assert.deepEqual([dot.x, dot.y, dot.w, dot.h], [280, 95, 50, 50]);
    const full = new Map([60, 170, 280].flatMap((x) => [35, 95].map((y) => [`${x}-${y}`, shape(`${x}-${y}`, { x, y })])));
    assert.equal(predictSnap({ ...canvas, shapes: full }, { op: 'snap', x: 20, y: 20 }, 'p'), null);

    const f = fakes();
    const c = client(f);
    f.last().open(welcome({ role: 'editor', grid: { width: 340, height: 130, x: { pitch: 32 }, y: { pitch: 32 } }, layout, shapes: [...full.values()] }));
    f.last().drop(1006);
    const id = c.snap(20, 20);
    assert.ok(id, 'the tap is sent all the same: the server answers layout_full');
    assert.equal(c.pending.ops.length, 1);
    assert.equal(c.drawingOrder().length, 6, 'nothing drawn for it');
  });
});

// Against the real server: tokens made as the operator makes them (`snapboard-server token`).
describe('against snapboard-server', () => {
  const secret = 'a-web-states-test-secret-of-more-than-32-bytes';
  const mint = (canvas, { ttl = '1h', role = 'editor', sub = 'ann-id' } = {}) => execFileSync(serverBinary,
    ['token', '--canvas', canvas, '--ttl', ttl, '--role', role, '--sub', sub, '--secret', secret]).toString().trim();
  const servers = [];
  after(async () => { for (const s of servers) await s.stop(); });
  const server = async (args = []) => { const s = await startServer({ args: ['--auth-secret', secret, ...args] }); servers.push(s); return s; };
  const open = (srv, canvas, extra = {}) => {
    const c = new SnapboardClient({ url: srv.ws(canvas), name: 'ann', pingInterval: 0, ...extra });
    made.push(c);
    c.connect();
    return c;
  };

  test('no token, another canvas\'s token, or an expired one: the client stops and says why', async () => {
    const srv = await server();
    const cases = [[undefined, 'unauthorized', 'missing'], [mint('elsewhere'), 'unauthorized', 'wrong_canvas'], [`${mint('st-probe').slice(0, -4)}AAAA`, 'unauthorized', 'bad_signature'], ['not-a-jwt', 'unauthorized', 'malformed']];
    for (const [token, state, code] of cases) {
      const c = open(srv, 'st-probe', { token });
      await until(`${code}: ${state}`, () => c.state === state);
      assert.equal(c.problem.code, code);
      assert.equal(c.problem.message, problemFor(code).message);
      assert.equal(c.link.timers.length, 0, 'no reconnect scheduled');
      c.close();
    }
    const later = open(srv, 'st-probe');
    await until('unauthorized', () => later.state === 'unauthorized');
    later.setToken(mint('st-probe'));
    await until('connected with the token set', () => later.state === 'connected');
    assert.deepEqual([later.problem, later.role, later.canEdit], [null, 'editor', true]);
  });

  test('a token expired before the page opened: expired in words; a refresh that gives nothing leaves it so, and setToken connects', async () => {
    const srv = await server();
    const old = mint('st-old', { ttl: '1s' });
    const exp = JSON.parse(Buffer.from(old.split('.')[1], 'base64url')).exp;
    await until('the token expired', () => Date.now() / 1000 > exp + 1, 5000);
    let asked = 0;
    const c = open(srv, 'st-old', { token: old, refreshToken: async () => { asked += 1; return null; } });
    await until('expired', () => c.state === 'expired');
    await until('refreshToken asked', () => asked === 1);
    assert.deepEqual([c.state, c.link.timers.length], ['expired', 0], 'no token, nothing more to do');
    assert.deepEqual(c.problem, problemFor('expired'));
    assert.equal(c.canEdit, false);
    assert.match(c.problem.message, /^Your access link has expired\. Ask the canvas owner for a new link\.$/);
    c.setToken(mint('st-old'));
    await until('connected', () => c.state === 'connected');
  });

  test('a token that expires during the session: read-only, then refreshToken\'s token reconnects and the edits go on', async () => {
    const srv = await server();
    let refreshed = 0;
    const c = open(srv, 'st-refresh', { token: mint('st-refresh', { ttl: '2s' }), refreshToken: async () => { refreshed += 1; return mint('st-refresh'); } });
    await until('connected', () => c.state === 'connected');
    assert.deepEqual([c.role, c.canEdit], ['editor', true]);
    const states = [];
    c.on('state', (s) => states.push([s, c.canEdit, c.problem?.code ?? null]));
    await until('expired and back', () => states.length >= 3 && c.state === 'connected', 10000);
    assert.deepEqual(states.slice(0, 2), [['expired', false, 'token_expired'], ['connecting', true, null]]);
    assert.equal(refreshed, 1);
    c.snap(100, 100);
    await until('the snap answered', () => c.pending.ops.length === 0);
    const { body } = await get(srv, '/v1/canvases/st-refresh', { Authorization: `Bearer ${mint('st-refresh')}` });
    assert.equal(body.shapes.length, 1);
  });

  test('a viewer\'s join of a canvas that is not stored: not_found in words; a viewer of one that is: role viewer, and nothing sent', async () => {
    const srv = await server();
    const nobody = open(srv, 'st-nothing', { token: mint('st-nothing', { role: 'viewer' }) });
    await until('not_found', () => nobody.state === 'not_found');
    assert.equal(nobody.problem.code, 'viewer_cannot_create');
    const editor = open(srv, 'st-view', { token: mint('st-view') });
    await until('the editor connected', () => editor.state === 'connected');
    editor.snap(64, 64);
    await until('stored', () => editor.pending.ops.length === 0);
    const viewer = open(srv, 'st-view', { token: mint('st-view', { role: 'viewer', sub: 'vic' }) });
    await until('the viewer connected', () => viewer.state === 'connected');
    assert.deepEqual([viewer.role, viewer.canEdit], ['viewer', false]);
    const wire = await watch(srv, 'st-view', { token: mint('st-view') });
    const seq = wire.seq();
    const id = [...viewer.replica.shapes.keys()][0];
    assert.deepEqual(viewer.nudge([id], 32, 0), []);
    viewer.gesture('move', id).update({ dx: 40, dy: 0 });
    assert.equal(viewer.snap(200, 200), null);
    editor.nudge([id], 32, 0); // a marker: the watcher has seen everything before it
    await until('the marker', () => wire.committed().length === 1);
    assert.equal(wire.committed()[0].seq, seq + 1, 'only the editor\'s nudge committed');
    assert.equal(wire.committed()[0].by, editor.replica.session);
    wire.close();
  });

  test('4005 (a PUT import) replaces the canvas: the replaced event, a fresh welcome, the import\'s shapes', async () => {
    const admin = 'an-admin-token-of-at-least-32-characters';
    const srv = await server(['--admin-token', admin]);
    const c = open(srv, 'st-replace', { token: mint('st-replace') });
    await until('connected', () => c.state === 'connected');
    c.snap(64, 64);
    await until('stored', () => c.pending.ops.length === 0);
    const exported = (await get(srv, '/v1/canvases/st-replace/export', { Authorization: `Bearer ${admin}` })).body;
    c.snap(200, 200);
    await until('stored', () => c.pending.ops.length === 0);
    assert.equal(c.replica.shapes.size, 2);
    const replaced = [];
    c.on('replaced', (r) => replaced.push(r));
    const put = await send(srv, 'PUT', '/v1/canvases/st-replace', exported, { Authorization: `Bearer ${admin}` });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    await until('the replaced event', () => replaced.length === 1);
    await until('connected to the import', () => c.state === 'connected' && c.replica.shapes.size === 1);
    assert.deepEqual(replaced, [{ dropped: 0 }]);
  });

  test('a join that would create a canvas on a full server: storage_full in words, no reconnect', async () => {
    const srv = await server(['--max-stored-canvases', '1']);
    const first = open(srv, 'st-one', { token: mint('st-*') });
    await until('the first canvas', () => first.state === 'connected');
    first.snap(64, 64);
    await until('stored', () => first.pending.ops.length === 0);
    const second = open(srv, 'st-two', { token: mint('st-*') });
    await until('storage_full', () => second.state === 'storage_full');
    assert.match(second.problem.message, /cannot create this one/);
    assert.equal(second.link.timers.length, 0);
  });

  test('a snap\'s prediction is where the server puts the shape, on grids, layouts that fit and fill, and taken cells', async () => {
    const srv = await startServer();
    servers.push(srv);
    const canvases = [
      { id: 'pr-grid', width: 640, height: 480, grid: { x: { pitch: 40 }, y: { divisions: 6 } } },
      { id: 'pr-layout', width: 640, height: 480, layout: { mode: 'flexible', rows: 3, columns: 4, padding: 12 } },
      { id: 'pr-fill', width: 640, height: 480, layout: { mode: 'squareFromRows', rows: 3, padding: 8, fill: true } },
    ];
    const taps = [[5, 5, { kind: 'roundedRect', w: 160, h: 80 }], [333, 250, undefined], [333, 250, { kind: 'oval', w: 60, h: 90 }], [639, 479, { kind: 'star' }],
      [100, 400, { kind: 'triangle', w: 200, h: 100 }], [101, 401, { kind: 'polygon', sides: 5 }]];
    for (const body of canvases) {
      assert.equal((await send(srv, 'POST', '/v1/canvases', body)).status, 201);
      const c = open(srv, body.id);
      await until(`${body.id} connected`, () => c.state === 'connected');
      for (const [x, y, spec] of taps) {
        const predicted = predictSnap(c.replica, spec ? { op: 'snap', x, y, shape: spec } : { op: 'snap', x, y }, 'p');
        const before = new Set(c.replica.shapes.keys());
        c.snap(x, y, spec);
        await until('the snap answered', () => c.pending.ops.length === 0);
        const made = [...c.replica.shapes.values()].find((s) => !before.has(s.id));
        const where = `${body.id}, a tap at (${x}, ${y})`;
        assert.ok(made, `${where}: a shape`);
        for (const key of ['x', 'y', 'w', 'h', 'z', 'kind']) assert.ok(predicted[key] === made[key] || Math.abs(predicted[key] - made[key]) < 1e-9, `${where}: ${key} predicted ${predicted[key]}, made ${made[key]}`);
      }
      c.close();
    }
  });

  test('close(1001) on pagehide: the others see the session leave at once', async () => {
    const srv = await server();
    const ann = open(srv, 'st-leave', { token: mint('st-leave', { sub: 'ann' }) });
    const ben = open(srv, 'st-leave', { token: mint('st-leave', { sub: 'ben' }) });
    await until('both connected', () => ann.state === 'connected' && ben.state === 'connected');
    await until('ben sees ann', () => ben.replica.sessions.has(ann.replica.session));
    ann.close(1001);
    assert.equal(ann.state, 'closed');
    await until('ann left ben\'s presence', () => !ben.replica.sessions.has(ann.replica.session), 5000);
  });
});
