// Selection gestures (protocol 1.7, P29) in the library: `gesture` given several ids drives one move,
// scale or rotate on all of them, its ops naming them as `shapes`, against a stub socket and against a
// real server with two clients.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { bounds, predictSelection, REVISION, SnapboardClient } from '../../Sources/SnapboardWeb/lib/index.js';
import { until } from './support.mjs';
import { librarySuite } from './library-support.mjs';

const shape = (id, x, y, extra = {}) => ({ id, kind: 'roundedRect', x, y, w: 40, h: 20, scale: 1, rotation: 0, fill: { h: 0, s: 0, b: 0, a: 1 }, hatch: 'none', z: 0, ...extra });
const schema = JSON.parse(readFileSync(new URL('../../Protocol/schema/op.json', import.meta.url), 'utf8'));

/** Each op against its variant of op.json: the fields it may carry, those it must, and `shape` or `shapes`, never both. */
function assertFitsSchema(op) {
  const variant = schema.oneOf.find((v) => v.properties.op.const === op.op);
  assert.ok(variant, `op.json has ${op.op}`);
  const allowed = new Set([...Object.keys(schema.properties), ...Object.keys(variant.properties)]);
  for (const key of Object.keys(op)) assert.ok(allowed.has(key), `${op.op}.${key} is in op.json`);
  for (const key of [...schema.required, ...variant.required ?? []]) assert.ok(key in op, `${op.op} carries ${key}`);
  if (['move', 'scale', 'rotate'].includes(op.op)) assert.ok(('shape' in op) !== ('shapes' in op), `${op.op} names shape or shapes`);
  if (op.shapes && ['move', 'scale', 'rotate'].includes(op.op)) assert.ok(op.shapes.length >= 2 && op.shapes.length <= 1000 && op.shapes.every((s) => typeof s === 'string'));
}

/** A client on a stub socket that holds `shapes` and records what it writes; `schedule` runs at once. */
async function stubClient(shapes) {
  const sent = [];
  class StubSocket {
    static OPEN = 1;
    constructor() { this.readyState = 1; setTimeout(() => this.onopen?.(), 0); }
    send(text) { sent.push(JSON.parse(text)); }
    close() {}
  }
  const client = new SnapboardClient({ url: 'ws://127.0.0.1:9/v1/canvases/t', WebSocket: StubSocket, pingInterval: 0, schedule: (fn) => fn() });
  client.connect();
  await until('the stub opened', () => client.link.socket?.onmessage);
  client.link.socket.onmessage({ data: JSON.stringify({ type: 'welcome', protocol: 1, revision: REVISION, session: 1, canvas: 't', seq: 2, epoch: 'e', resumed: false,
    grid: { width: 1000, height: 800, x: { pitch: 10 }, y: { pitch: 10 } }, shapes, sessions: [], leases: {} }) });
  await until('connected', () => client.state === 'connected');
  return { client, ops: () => sent.filter((m) => m.type === 'op') };
}

test('[P29] a gesture given several ids names them as shapes in its begin, updates and end, fitting op.json; one id is a single gesture', async () => {
  const { client, ops } = await stubClient([shape('a', 100, 100), shape('b', 200, 100)]);
  const drag = client.gesture('move', new Set(['a', 'b', 'a']));
  assert.deepEqual(drag.shapes, ['a', 'b'], 'repeats count once');
  drag.update({ dx: 10, dy: 5 });
  drag.update({ dx: 30, dy: 5 });
  const endId = drag.end({ dx: 40, dy: 10 });
  client.gesture('scale', ['a', 'b']).end({ factor: 2 });
  client.gesture('rotate', ['b', 'a']).end({ radians: 0.5 });
  client.gesture('move', ['a']).end({ dx: 1, dy: 1 });
  const sent = ops().map(({ type, id, ...op }) => op);
  assert.deepEqual(sent, [
    { op: 'move', shapes: ['a', 'b'], phase: 'begin', dx: 0, dy: 0 },
    { op: 'move', shapes: ['a', 'b'], phase: 'update', dx: 10, dy: 5 },
    { op: 'move', shapes: ['a', 'b'], phase: 'update', dx: 30, dy: 5 },
    { op: 'move', shapes: ['a', 'b'], phase: 'end', dx: 40, dy: 10 },
    { op: 'scale', shapes: ['a', 'b'], phase: 'begin', factor: 1 },
    { op: 'scale', shapes: ['a', 'b'], phase: 'end', factor: 2 },
    { op: 'rotate', shapes: ['b', 'a'], phase: 'begin', radians: 0 },
    { op: 'rotate', shapes: ['b', 'a'], phase: 'end', radians: 0.5 },
    { op: 'move', shape: 'a', phase: 'begin', dx: 0, dy: 0 },
    { op: 'move', shape: 'a', phase: 'end', dx: 1, dy: 1 },
  ]);
  for (const op of ops()) assertFitsSchema(op);
  assert.ok(client.pending.ops.some((p) => p.id === endId), 'the end waits for its ack');
  // A refused begin ends the gesture: nothing more goes, and its end sends nothing.
  const held = client.gesture('move', ['a', 'b']);
  const count = ops().length;
  client.link.socket.onmessage({ data: JSON.stringify({ type: 'reject', id: held.beginId, code: 'shape_locked', message: 'held' }) });
  assert.deepEqual([held.refused, held.ended, client.gestures.has(held)], ['shape_locked', true, false]);
  held.update({ dx: 5, dy: 5 });
  assert.equal(held.end({ dx: 5, dy: 5 }), null);
  assert.equal(ops().length, count, 'nothing sent after the refusal');
  client.close();
});

test('[P29] offline, a selection gesture is previewed on all its shapes and ends as one one-shot op naming them', async () => {
  const { client, ops } = await stubClient([shape('a', 100, 100), shape('b', 200, 100)]);
  client.link.socket.onclose?.({ code: 1006 });
  await until('offline', () => client.state !== 'connected');
  const drag = client.gesture('move', ['a', 'b']);
  drag.update({ dx: 20, dy: 10 });
  assert.deepEqual(client.drawingOrder().map((s) => [s.id, s.x, s.y]), [['a', 120, 110], ['b', 220, 110]], 'both drawn moved');
  const id = drag.end();
  assert.deepEqual(client.offlineEdits.get(id).map((s) => [s.id, s.x, s.y]), [['a', 120, 110], ['b', 220, 110]]);
  assert.deepEqual(client.pending.ops.at(-1).op, { type: 'op', id, op: 'move', shapes: ['a', 'b'], dx: 20, dy: 10 });
  assert.equal(ops().length, 0, 'nothing written while offline');
  client.close();
});

test('[P29] predictSelection scales and turns about the centre of the union bounds, or the anchor given', () => {
  const origins = [shape('a', 100, 100), shape('b', 300, 100)];
  const scaled = predictSelection(origins, 'scale', { factor: 2 });
  assert.deepEqual(scaled.map((s) => [s.x, s.y, s.scale]), [[0, 100, 2], [400, 100, 2]]);
  const anchored = predictSelection(origins, 'scale', { factor: 2, ax: 100, ay: 100 });
  assert.deepEqual(anchored.map((s) => [s.x, s.y]), [[100, 100], [500, 100]]);
  const turned = predictSelection(origins, 'rotate', { radians: Math.PI / 2 });
  assert.deepEqual(turned.map((s) => [Math.round(s.x), Math.round(s.y), s.rotation]), [[200, 0, Math.PI / 2], [200, 200, Math.PI / 2]]);
  const b = bounds(turned[0]);
  assert.ok(Math.abs(b.maxX - b.minX - 20) < 1e-9, 'each shape turned too');
});

const suite = librarySuite();

test('[P29] against a real server: ann drags two shapes as one, ben is refused shape_locked, one commit, one undo step; a locked shape refuses the begin whole', async () => {
  const { ann, ben, answers, answer } = await suite.pair('lib-selection');
  const written = [];
  for (const client of [ann, ben]) {
    const write = client.link.write.bind(client.link);
    client.link.write = (m) => { if (m.type === 'op') written.push(m); return write(m); };
  }
  const committed = [];
  ben.link.socket.addEventListener('message', (event) => {
    const value = JSON.parse(event.data);
    for (const m of Array.isArray(value) ? value : [value]) if (m.type === 'delta' && !m.live) committed.push(m);
  });

  await answer(ann.snap(192, 192, { kind: 'roundedRect', w: 64, h: 64 }));
  await answer(ann.snap(384, 192, { kind: 'oval', w: 64, h: 64 }));
  await answer(ann.snap(576, 192, { kind: 'star', w: 64, h: 64 }));
  const [one, two, three] = ann.replica.drawingOrder().map((s) => s.id);
  await until('ben has the shapes', () => ben.replica.shapes.size === 3);
  const before = new Map([one, two].map((id) => [id, { ...ben.replica.shapes.get(id) }]));
  const seq = ann.replica.seq;

  const drag = ann.gesture('move', [one, two]);
  await until('ben sees both leased', () => ben.replica.leases[one] !== undefined && ben.replica.leases[two] !== undefined);
  assert.equal(ben.replica.leases[three], undefined, 'the third shape is free');
  const refused = ben.gesture('move', [two, three]);
  await until('ben\'s begin refused', () => refused.refused);
  assert.equal(refused.refused, 'shape_locked');
  assert.equal(answers.get(refused.beginId).code, 'shape_locked');
  assert.equal(ben.replica.leases[three], undefined, 'refused whole: not even the free shape leased');

  drag.update({ dx: 100, dy: 50 });
  await until('ben sees both move live', () => ben.replica.shapes.get(one).x !== before.get(one).x && ben.replica.shapes.get(two).x !== before.get(two).x);
  const ack = await answer(drag.end({ dx: 100, dy: 50 }));
  assert.deepEqual([ack.type, ack.seq], ['ack', seq + 1], 'one op, one seq');
  await until('ben has the commit', () => committed.some((d) => d.seq === ack.seq));
  const delta = committed.find((d) => d.seq === ack.seq);
  assert.equal(committed.filter((d) => d.seq > seq).length, 1, 'exactly one committed delta');
  const moved = new Map(delta.shapes.map((s) => [s.id, s]));
  const offset = (id) => [moved.get(id).x - before.get(id).x, moved.get(id).y - before.get(id).y];
  assert.ok(moved.has(one) && moved.has(two), 'the delta carries both shapes');
  assert.deepEqual(offset(one), offset(two), 'both moved by the same offset');
  assert.notDeepEqual(offset(one), [0, 0]);
  await until('the leases are gone', () => ben.replica.leases[one] === undefined && ben.replica.leases[two] === undefined);

  // One undo step puts both back.
  const undone = await answer(ann.undo());
  assert.equal(undone.type, 'ack');
  await until('ben sees both back', () => [one, two].every((id) => ben.replica.shapes.get(id).x === before.get(id).x && ben.replica.shapes.get(id).y === before.get(id).y));

  // A locked shape in the selection: the begin is refused whole (locked).
  await answer(ann.lock([three], true));
  const locked = ben.gesture('rotate', [one, three]);
  await until('ben\'s rotate refused', () => locked.refused);
  assert.equal(locked.refused, 'locked');
  assert.equal(locked.end({ radians: 1 }), null);

  // A scale on the selection about its centre, one commit.
  const scale = ann.gesture('scale', [one, two]);
  scale.update({ factor: 1.5 });
  const scaled = await answer(scale.end({ factor: 1.5 }));
  assert.equal(scaled.type, 'ack');
  await until('ben sees both scaled', () => [one, two].every((id) => ben.replica.shapes.get(id).scale > 1.2));

  for (const op of written) assertFitsSchema(op);
  assert.ok(written.some((op) => op.op === 'move' && op.phase === 'update' && op.shapes?.length === 2), 'updates named both shapes');
});

test('[P10, P29] a 100-shape selection dragged on every pointer event is paced within the server\'s op rate: no rate_limited, one commit', async () => {
  const ann = await suite.open('ann', 'lib-selection-pace');
  await until('connected', () => ann.state === 'connected');
  const answers = new Map();
  for (const kind of ['ack', 'reject']) ann.on(kind, (m) => answers.set(m.id, m));
  const updates = [];
  const write = ann.link.write.bind(ann.link);
  ann.link.write = (m) => { if (m.type === 'op' && m.phase === 'update') updates.push(m); return write(m); };
  const made = [];
  for (let i = 0; i < 100; i += 1) made.push(ann.snap(100 + (i % 10) * 64, 100 + Math.floor(i / 10) * 64, { kind: 'dot', w: 24 }));
  await until('all 100 acked', () => made.every((id) => answers.get(id)?.type === 'ack'));
  const ids = [...ann.replica.shapes.keys()];
  assert.equal(ids.length, 100);

  // A pointer event every 4 ms for a second: unpaced, a frame's update each (60 × 100 shapes) would pass the
  // 2,000 a second the server allows.
  const drag = ann.gesture('move', ids);
  for (let t = 1; t <= 250; t += 1) {
    drag.update({ dx: t, dy: 0 });
    await new Promise((resolve) => setTimeout(resolve, 4));
  }
  const endId = drag.end({ dx: 256, dy: 0 });
  const ack = await until('the end answered', () => answers.get(endId));
  assert.equal(ack.type, 'ack');
  assert.deepEqual([...answers.values()].filter((m) => m.type === 'reject'), [], 'nothing refused');
  assert.ok(updates.length >= 3 && updates.length <= 25, `${updates.length} updates, about 15 a second for 100 shapes`);
});
