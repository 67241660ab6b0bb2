// Connectors (protocol 1.7, P28) in the library: a connector's ends from its frame, what an end's drag
// predicts and resends, `connector` and `endpoint` as ops fitting op.json against a stub socket, and two
// clients on a real server: ends given as points bind to anchors, bindings go as given, a move carries the
// arrow in the same commit, an endpoint gesture rebinds an end with an anchor haptic, and refusals.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { endpoints, predict, progress, remainder, SnapboardClient } from '../../Sources/SnapboardWeb/lib/index.js';
import { get, until } from './support.mjs';
import { librarySuite } from './library-support.mjs';

const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-6, `${what}: ${a} vs ${b}`);
const closePoint = (p, q, what) => { close(p.x, q.x, `${what} x`); close(p.y, q.y, `${what} y`); };

test('[P28] an end\'s drag moves that end alone, frees it, and its progress and rest are the end\'s translation', () => {
  const arrow = { id: 'a', kind: 'arrow', x: 400, y: 192, w: 316, h: 16, scale: 1, rotation: 0, z: 0, from: { shape: 'l', anchor: 'right' }, to: { shape: 'r', anchor: 'left' } };
  const moved = predict(arrow, 'endpoint', { dx: -100, dy: -100 }, { end: 'to' });
  closePoint(endpoints(moved).from, { x: 242, y: 192 }, 'from stays');
  closePoint(endpoints(moved).to, { x: 458, y: 92 }, 'to moved');
  assert.deepEqual(moved.from, arrow.from, 'the other end keeps its binding');
  assert.equal('to' in moved, false, 'the dragged end is free until the server binds it');
  const done = progress('endpoint', arrow, moved, { end: 'to' });
  close(done.dx, -100, 'dx'); close(done.dy, -100, 'dy');
  assert.deepEqual(progress('endpoint', arrow, moved, { end: 'from' }), { dx: 0, dy: 0 }, 'the from end did not move');
  assert.deepEqual(remainder('endpoint', { dx: 10, dy: 4 }, { dx: 3, dy: 4 }), { dx: 7, dy: 0 });
});

test('[P28] connector and endpoint send ops that fit op.json, only their forms\' fields; a viewer sends none', async () => {
  const sent = [];
  class StubSocket {
    static OPEN = 1;
    constructor() { this.readyState = 1; setTimeout(() => this.onopen?.(), 0); }
    send(text) { sent.push(JSON.parse(text)); }
    close() {}
  }
  const client = new SnapboardClient({ url: 'ws://127.0.0.1:9/v1/canvases/t', WebSocket: StubSocket, pingInterval: 0, schedule: (fn) => fn() });
  client.link.write = (m) => sent.push(m);
  const ids = [
    client.connector({ x: 10, y: 20, extra: 1 }, { shape: 'b', anchor: 'left', u: 0.1 }),
    client.connector({ shape: 'a', u: 0.25, v: -0.5 }, { x: 5, y: 6 }, { kind: 'line', shapeId: 'l1', stroke: 'blue', strokeWidth: 2.5, text: 'to', ignored: true }),
  ];
  const ops = client.pending.ops.map((p) => p.op);
  assert.deepEqual(ops, [
    { type: 'op', id: ids[0], op: 'connect', from: { x: 10, y: 20 }, to: { shape: 'b', anchor: 'left' }, shape: { kind: 'arrow' } },
    { type: 'op', id: ids[1], op: 'connect', from: { shape: 'a', u: 0.25, v: -0.5 }, to: { x: 5, y: 6 }, shape: { kind: 'line', stroke: 'blue', strokeWidth: 2.5, text: 'to' }, shapeId: 'l1' },
  ]);
  // An endpoint gesture, connected: a begin, updates and an end, each naming the end.
  client.state = 'connected';
  client.role = 'editor';
  client.replica.shapes.set('c', { id: 'c', kind: 'arrow', x: 50, y: 50, w: 40, h: 16, scale: 1, rotation: 0, z: 0 });
  const drag = client.endpoint('c', 'from');
  drag.update({ dx: 3, dy: 4 });
  const endId = drag.end({ dx: 6, dy: 8 });
  const gesture = sent.filter((m) => m.op === 'endpoint');
  assert.deepEqual(gesture.map(({ id, ...m }) => m), [
    { type: 'op', op: 'endpoint', shape: 'c', end: 'from', phase: 'begin', dx: 0, dy: 0 },
    { type: 'op', op: 'endpoint', shape: 'c', end: 'from', phase: 'update', dx: 3, dy: 4 },
    { type: 'op', op: 'endpoint', shape: 'c', end: 'from', phase: 'end', dx: 6, dy: 8 },
  ]);
  assert.equal(gesture.at(-1).id, endId);
  const schema = JSON.parse(readFileSync(new URL('../../Protocol/schema/op.json', import.meta.url), 'utf8'));
  for (const op of [...ops, ...gesture]) {
    const variant = schema.oneOf.find((v) => v.properties.op.const === op.op);
    assert.ok(variant, `op.json has ${op.op}`);
    const allowed = new Set([...Object.keys(schema.properties), ...Object.keys(variant.properties)]);
    for (const key of Object.keys(op)) assert.ok(allowed.has(key), `${op.op}.${key} is in op.json`);
    for (const key of [...schema.required, ...variant.required ?? []]) assert.ok(key in op, `${op.op} carries ${key}`);
    for (const end of ['from', 'to']) {
      if (!op[end]) continue;
      const forms = variant.properties[end].oneOf.filter((f) => f.required.every((k) => k in op[end]) && Object.keys(op[end]).every((k) => k in f.properties));
      assert.equal(forms.length, 1, `${op.op}.${end} ${JSON.stringify(op[end])} is one of op.json's forms`);
    }
  }
  client.close();
  const viewer = new SnapboardClient({ url: 'ws://127.0.0.1:9/v1/canvases/t', WebSocket: StubSocket, pingInterval: 0 });
  viewer.role = 'viewer';
  assert.equal(viewer.connector({ x: 1, y: 1 }, { x: 2, y: 2 }), null);
  assert.equal(viewer.endpoint('c', 'to').end({ dx: 1, dy: 1 }), null);
  assert.equal(viewer.pending.ops.length, 0);
  viewer.close();
});

const suite = librarySuite();

test('[P28] against a real server: points bind to anchors, bindings go as given, a move carries the arrow, an end dragged rebinds it, bad_shape', async () => {
  const { server, ann, ben, answers, answer } = await suite.pair('lib-connectors');
  const haptics = [], deltas = [];
  ann.on('haptic', (h) => haptics.push(h));
  ben.link.onMessage = ((handle) => (m) => { if (m.type === 'delta' && !m.live) deltas.push(m); handle(m); })(ben.link.onMessage);
  const box = (shapeId, x, y) => ({ op: 'snap', x, y, shapeId, shape: { kind: 'roundedRect', w: 100, h: 100 } });
  for (const [id, x, y] of [['left', 192, 192], ['right', 608, 192], ['low', 416, 480]]) assert.equal((await answer(ann.send(box(id, x, y)))).type, 'ack');
  const frame = (id) => ben.replica.shapes.get(id);

  // Bound as given at one end, a point near the right shape's left edge middle at the other: bound there.
  const linked = await answer(ann.connector({ shape: 'left', anchor: 'right' }, { x: 555, y: 196 }, { shapeId: 'link', strokeWidth: 2.5 }));
  assert.equal(linked.type, 'ack');
  await until('ben sees the arrow', () => frame('link'));
  const link = frame('link');
  assert.deepEqual({ kind: link.kind, h: link.h, from: link.from, to: link.to }, { kind: 'arrow', h: 16, from: { shape: 'left', anchor: 'right' }, to: { shape: 'right', anchor: 'left' } });
  closePoint(endpoints(link).from, { x: 242, y: 192 }, 'from at the left shape\'s right edge');
  closePoint(endpoints(link).to, { x: 558, y: 192 }, 'to at the right shape\'s left edge');

  // Points at the left shape's top and inside the low shape: an anchor, and the point under it.
  const line = await answer(ann.connector({ x: 190, y: 145 }, { x: 430, y: 500 }, { kind: 'line', shapeId: 'rope' }));
  assert.equal(line.type, 'ack');
  await until('ben sees the line', () => frame('rope'));
  assert.deepEqual(frame('rope').from, { shape: 'left', anchor: 'top' });
  assert.equal(frame('rope').to.shape, 'low', 'a point on a shape binds to it');
  assert.equal(frame('rope').kind, 'line');

  // Ben moves the right shape: the arrow is laid again in the same committed delta.
  const moved = await answer(ben.send({ op: 'move', shape: 'right', dx: 96, dy: 0, snap: false }));
  const carried = await until('the move\'s delta', () => deltas.find((d) => d.seq === moved.seq));
  assert.deepEqual(carried.shapes.map((s) => s.id).sort(), ['link', 'right'], 'the arrow comes with the shape it is bound to');
  closePoint(endpoints(frame('link')).to, { x: 654, y: 192 }, 'the arrow\'s head followed');

  // Ann drags the arrow's head onto the low shape's top anchor: one gesture, one reconnect, an anchor haptic.
  const low = frame('low'), head = endpoints(ann.replica.shapes.get('link')).to;
  const drag = ann.endpoint('link', 'to');
  const target = { dx: low.x + 2 - head.x, dy: low.y - 50 + 3 - head.y };
  drag.update({ dx: target.dx / 2, dy: target.dy / 2 });
  await new Promise((r) => setTimeout(r, 60));
  drag.update(target);
  await until('the anchor haptic', () => haptics.some((h) => h.reason === 'anchor'));
  const rebound = await answer(drag.end(target));
  assert.equal(rebound.type, 'ack');
  await until('ben sees the head rebound', () => frame('link')?.to?.shape === 'low');
  assert.deepEqual(frame('link').to, { shape: 'low', anchor: 'top' });
  assert.deepEqual(frame('link').from, { shape: 'left', anchor: 'right' }, 'the other end stays bound');
  closePoint(endpoints(frame('link')).to, { x: low.x, y: low.y - 50 }, 'at the low shape\'s top edge middle');
  const { body } = await get(server, '/v1/canvases/lib-connectors/history');
  assert.equal(body.ops.find((o) => o.seq === rebound.seq)?.op.type, 'reconnect', 'one reconnect commit');

  // Refusals: a connector of another kind, an end bound to a connector, a shape that does not exist.
  const oval = await answer(ben.send({ op: 'connect', from: { x: 1, y: 1 }, to: { x: 9, y: 9 }, shape: { kind: 'oval' } }));
  assert.deepEqual([oval.type, oval.code], ['reject', 'bad_shape']);
  const onConnector = await answer(ben.connector({ shape: 'link', anchor: 'center' }, { x: 100, y: 600 }));
  assert.deepEqual([onConnector.type, onConnector.code], ['reject', 'bad_shape'], 'an end bound to a connector');
  const gone = await answer(ben.connector({ shape: 'nowhere', anchor: 'top' }, { x: 100, y: 600 }));
  assert.deepEqual([gone.type, gone.code], ['reject', 'unknown_shape']);
  const notConnector = await answer(ben.send({ op: 'endpoint', shape: 'left', end: 'to', dx: 5, dy: 5 }));
  assert.deepEqual([notConnector.type, notConnector.code], ['reject', 'bad_shape'], 'an endpoint of a shape that is no connector');
  assert.equal([...ben.replica.shapes.values()].filter((s) => s.kind === 'arrow' || s.kind === 'line').length, 2, 'nothing else was drawn');
});
