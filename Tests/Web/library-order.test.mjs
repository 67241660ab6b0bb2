// Z-order and lock (protocol 1.6, P25) in the library: the replica keeps `locked`, and `order` and `lock`
// send their ops, against a stub socket and against a real server with two clients.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REVISION, Replica, SnapboardClient } from '../../Sources/SnapboardWeb/lib/index.js';
import { get, until } from './support.mjs';
import { librarySuite } from './library-support.mjs';

const shape = (id, z, extra = {}) => ({ id, kind: 'dot', x: 10, y: 10, w: 24, h: 24, scale: 1, rotation: 0, fill: { h: 0, s: 0, b: 0, a: 1 }, hatch: 'none', z, ...extra });
const welcome = (shapes) => ({ type: 'welcome', protocol: 1, revision: REVISION, session: 1, canvas: 't', seq: 2, epoch: 'e', resumed: false,
  grid: { width: 100, height: 80, x: { pitch: 10 }, y: { pitch: 10 } }, shapes, sessions: [], leases: {} });

test('the replica keeps a shape\'s locked as deltas give it, and draws by z after an order', () => {
  const replica = new Replica();
  replica.apply(welcome([shape('a', 0), shape('b', 1, { locked: true })]));
  assert.equal(replica.isLocked('a'), false);
  assert.equal(replica.isLocked('b'), true);
  assert.equal(replica.isLocked('nope'), false);
  // An order's committed delta: a to the front.
  replica.apply({ type: 'delta', seq: 3, by: 1, ops: ['o1'], shapes: [shape('a', 2)], removed: [], cleared: false, events: [], live: false });
  assert.deepEqual(replica.drawingOrder().map((s) => s.id), ['b', 'a']);
  // An unlock's delta carries the shape without the field: the whole shape replaces the copy (P4).
  replica.apply({ type: 'delta', seq: 4, by: 1, ops: ['l1'], shapes: [shape('b', 1)], removed: [], cleared: false, events: [], live: false });
  assert.equal(replica.isLocked('b'), false);
  // A live delta's placements keep the rest of a shape, its lock included.
  replica.apply({ type: 'delta', seq: 5, by: 1, ops: ['l2'], shapes: [shape('a', 2, { locked: true })], removed: [], cleared: false, events: [], live: false });
  replica.apply({ type: 'delta', seq: 5, by: 2, ops: ['m'], placed: [['a', 20, 20, 24, 24, 1, 0, 2]], events: [], live: true });
  assert.equal(replica.isLocked('a'), true);
});

test('order and lock send one op each, tracked until answered, and return its id', () => {
  const sent = [];
  class StubSocket {
    static OPEN = 1;
    constructor() { this.readyState = 1; setTimeout(() => this.onopen?.(), 0); }
    send(text) { sent.push(JSON.parse(text)); }
    close() {}
  }
  const client = new SnapboardClient({ url: 'ws://127.0.0.1:9/v1/canvases/t', WebSocket: StubSocket, pingInterval: 0 });
  const order = client.order(new Set(['a', 'b']), 'backward');
  const lock = client.lock(['a'], true);
  assert.match(order, /-1$/);
  assert.match(lock, /-2$/);
  assert.deepEqual(client.pending.ops.map((p) => p.op), [
    { type: 'op', id: order, op: 'order', shapes: ['a', 'b'], to: 'backward' },
    { type: 'op', id: lock, op: 'lock', shapes: ['a'], locked: true },
  ]);
  client.close();
});

const suite = librarySuite();

test('against a real server: ann orders and locks, ben sees it and is refused locked when he moves the shape', async () => {
  const { server, ann, ben, answers, answer } = await suite.pair('lib-order');

  await answer(ann.snap(320, 320, { kind: 'roundedRect' }));
  await answer(ann.snap(352, 320, { kind: 'oval' }));
  const [bottom, top] = ann.replica.drawingOrder().map((s) => s.id);
  const front = await answer(ann.order([bottom], 'front'));
  assert.equal(front.type, 'ack');
  await until('ben draws the bottom shape on top', () => ben.replica.drawingOrder().at(-1)?.id === bottom);
  assert.equal((await answer(ann.order([bottom], 'front'))).unchanged, true, 'already in front: unchanged');

  const lock = await answer(ann.lock([bottom], true));
  assert.equal(lock.type, 'ack');
  await until('ben sees the lock', () => ben.replica.isLocked(bottom));
  const drag = ben.gesture('move', bottom);
  drag.update({ dx: 40, dy: 0 });
  drag.end();
  await until('ben\'s move refused', () => [...answers.values()].some((m) => m.type === 'reject' && m.code === 'locked'));
  const refusedDelete = await answer(ben.delete([bottom]));
  assert.deepEqual([refusedDelete.type, refusedDelete.code], ['reject', 'locked']);

  // Ben may restack a locked shape, and unlock it; then his move goes through.
  await answer(ben.order([top], 'forward'));
  await until('ann draws the other shape on top', () => ann.replica.drawingOrder().at(-1)?.id === top);
  await answer(ben.lock([bottom], false));
  await until('ann sees it unlocked', () => !ann.replica.isLocked(bottom));
  const moved = await answer(ben.nudge([bottom], 64, 0)[0]);
  assert.equal(moved.type, 'ack');
  const { body } = await get(server, '/v1/canvases/lib-order');
  assert.deepEqual(body.shapes.map((s) => s.id), [top, bottom], 'the server\'s stack: a move brings its shape to the front (P14)');
  assert.equal(body.shapes.some((s) => 'locked' in s), false, 'unlocked shapes carry no locked field');
});
