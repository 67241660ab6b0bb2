// Groups and copies (protocol 1.7, P27) in the library: the replica keeps a shape's `group` and lists a
// group's members, and `group`, `ungroup` and `duplicate` send one op each, against a stub socket and
// against a real server with two clients.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { REVISION, Replica, SnapboardClient } from '../../Sources/SnapboardWeb/lib/index.js';
import { get, until } from './support.mjs';
import { librarySuite } from './library-support.mjs';

const shape = (id, z, extra = {}) => ({ id, kind: 'dot', x: 10, y: 10, w: 24, h: 24, scale: 1, rotation: 0, fill: { h: 0, s: 0, b: 0, a: 1 }, hatch: 'none', z, ...extra });
const welcome = (shapes) => ({ type: 'welcome', protocol: 1, revision: REVISION, session: 1, canvas: 't', seq: 2, epoch: 'e', resumed: false,
  grid: { width: 100, height: 80, x: { pitch: 10 }, y: { pitch: 10 } }, shapes, sessions: [], leases: {} });
const delta = (seq, shapes) => ({ type: 'delta', seq, by: 1, ops: [`o${seq}`], shapes, removed: [], cleared: false, events: [], live: false });

test('[P27] the replica keeps a shape\'s group as deltas give it, and groupOf lists the members in drawing order', () => {
  const replica = new Replica();
  replica.apply(welcome([shape('a', 2), shape('b', 0), shape('c', 1)]));
  assert.deepEqual(replica.groupOf('a'), ['a'], 'in no group: itself');
  assert.deepEqual(replica.groupOf('nope'), [], 'not held: none');
  replica.apply(delta(3, [shape('a', 2, { group: 'g3' }), shape('b', 0, { group: 'g3' })]));
  assert.deepEqual(replica.groupOf('a'), ['b', 'a']);
  assert.deepEqual(replica.groupOf('b'), ['b', 'a']);
  assert.deepEqual(replica.groupOf('c'), ['c']);
  // An ungroup's delta carries the shapes without the field: the whole shape replaces the copy (P4).
  replica.apply(delta(4, [shape('a', 2), shape('b', 0)]));
  assert.deepEqual(replica.groupOf('b'), ['b']);
  // A live delta's placements keep the rest of a shape, its group included.
  replica.apply(delta(5, [shape('c', 1, { group: 'g5' }), shape('a', 2, { group: 'g5' })]));
  replica.apply({ type: 'delta', seq: 5, by: 2, ops: ['m'], placed: [['c', 20, 20, 24, 24, 1, 0, 3]], events: [], live: true });
  assert.deepEqual(replica.groupOf('a'), ['a', 'c']);
});

test('[P27] group, ungroup and duplicate send one op each, fitting op.json, tracked until answered, and return its id', () => {
  const sent = [];
  class StubSocket {
    static OPEN = 1;
    constructor() { this.readyState = 1; setTimeout(() => this.onopen?.(), 0); }
    send(text) { sent.push(JSON.parse(text)); }
    close() {}
  }
  const client = new SnapboardClient({ url: 'ws://127.0.0.1:9/v1/canvases/t', WebSocket: StubSocket, pingInterval: 0 });
  const ids = [client.group(new Set(['a', 'b'])), client.ungroup(['a']), client.duplicate(['a', 'b']), client.duplicate(new Set(['b', 'a']), { ids: new Set(['b2', 'a2']) })];
  assert.deepEqual(ids.map((id) => Number(id.split('-').at(-1))), [1, 2, 3, 4]);
  const ops = client.pending.ops.map((p) => p.op);
  assert.deepEqual(ops, [
    { type: 'op', id: ids[0], op: 'group', shapes: ['a', 'b'] },
    { type: 'op', id: ids[1], op: 'ungroup', shapes: ['a'] },
    { type: 'op', id: ids[2], op: 'duplicate', shapes: ['a', 'b'] },
    { type: 'op', id: ids[3], op: 'duplicate', shapes: ['b', 'a'], ids: ['b2', 'a2'] },
  ]);
  // Each against its variant of the schema: the fields it may carry, and those it must.
  const schema = JSON.parse(readFileSync(new URL('../../Protocol/schema/op.json', import.meta.url), 'utf8'));
  for (const op of ops) {
    const variant = schema.oneOf.find((v) => v.properties.op.const === op.op);
    assert.ok(variant, `op.json has ${op.op}`);
    const allowed = new Set([...Object.keys(schema.properties), ...Object.keys(variant.properties)]);
    for (const key of Object.keys(op)) assert.ok(allowed.has(key), `${op.op}.${key} is in op.json`);
    for (const key of [...schema.required, ...variant.required ?? []]) assert.ok(key in op, `${op.op} carries ${key}`);
  }
  client.close();
  // A viewer sends none of them.
  const viewer = new SnapboardClient({ url: 'ws://127.0.0.1:9/v1/canvases/t', WebSocket: StubSocket, pingInterval: 0 });
  viewer.role = 'viewer';
  assert.deepEqual([viewer.group(['a', 'b']), viewer.ungroup(['a']), viewer.duplicate(['a'], { ids: ['x'] })], [null, null, null]);
  assert.equal(viewer.pending.ops.length, 0);
  viewer.close();
});

const suite = librarySuite();

test('[P27] against a real server: ann groups, ben sees the group; an unchanged group; duplicates with and without ids; a taken id refused; ungroup', async () => {
  const { server, ann, ben, answers, answer } = await suite.pair('lib-groups');

  await answer(ann.snap(320, 320, { kind: 'roundedRect' }));
  await answer(ann.snap(480, 320, { kind: 'oval', text: 'pair' }));
  await answer(ann.snap(640, 320, { kind: 'star' }));
  const [left, right, alone] = ann.replica.drawingOrder().map((s) => s.id);

  const grouped = await answer(ann.group([left, right]));
  assert.equal(grouped.type, 'ack');
  assert.equal(grouped.unchanged, undefined);
  await until('ben sees the group', () => ben.replica.shapes.get(left)?.group !== undefined);
  const group = ben.replica.shapes.get(left).group;
  assert.match(group, /^g\d+/, 'the server names the group');
  assert.equal(ben.replica.shapes.get(right).group, group);
  assert.deepEqual(ben.replica.groupOf(right), [left, right]);
  assert.deepEqual(ben.replica.groupOf(alone), [alone]);
  const again = await answer(ann.group([right, left]));
  assert.deepEqual([again.type, again.unchanged, again.seq], ['ack', true, grouped.seq], 'already one group: unchanged, the same seq');

  // A duplicate naming its copies: one op, the copies in one new group, above everything.
  const seq = ann.replica.seq;
  const copied = await answer(ann.duplicate([left, right], { ids: ['left-copy', 'right-copy'] }));
  assert.deepEqual([copied.type, copied.seq], ['ack', seq + 1], 'one op, one seq');
  await until('ben has the copies', () => ben.replica.shapes.has('left-copy') && ben.replica.shapes.has('right-copy'));
  const [l, r] = [ben.replica.shapes.get('left-copy'), ben.replica.shapes.get('right-copy')];
  assert.ok(l.group && l.group === r.group && l.group !== group, 'the copies form a new group of their own');
  assert.equal(r.text, 'pair', 'a copy keeps its text');
  assert.deepEqual(ben.replica.drawingOrder().slice(-2).map((s) => s.id), ['left-copy', 'right-copy'], 'above every shape, in the originals\' order');
  const original = ben.replica.shapes.get(left);
  assert.ok(l.x > original.x && l.y > original.y, 'one grid step right and down');

  // Without ids the server names the copy.
  const before = new Set(ann.replica.shapes.keys());
  const unnamed = await answer(ann.duplicate([alone]));
  assert.equal(unnamed.type, 'ack');
  await until('ann has the copy', () => ann.replica.shapes.size === before.size + 1);
  const copy = [...ann.replica.shapes.values()].find((s) => !before.has(s.id));
  assert.equal(copy.kind, 'star');
  assert.equal(copy.group, undefined, 'a shape in no group is copied into none');

  // A taken id, or a malformed one: bad_shape_id, and nothing is made.
  for (const ids of [[alone], ['no spaces']]) {
    const refused = await answer(ben.duplicate([left], { ids }));
    assert.deepEqual([refused.type, refused.code], ['reject', 'bad_shape_id'], JSON.stringify(ids));
  }
  assert.equal(ben.replica.shapes.size, before.size + 1);

  // Ben ungroups one member: the whole group dissolves, for ann too; a group of one is out of range.
  const ungrouped = await answer(ben.ungroup([right]));
  assert.equal(ungrouped.type, 'ack');
  await until('ann sees the group dissolved', () => ann.replica.shapes.get(left)?.group === undefined && ann.replica.shapes.get(right)?.group === undefined);
  assert.deepEqual(ann.replica.groupOf(left), [left]);
  assert.equal((await answer(ben.ungroup([right]))).unchanged, true, 'in no group: unchanged');
  const single = await answer(ben.group([left]));
  assert.deepEqual([single.type, single.code], ['reject', 'out_of_range']);

  const { body } = await get(server, '/v1/canvases/lib-groups');
  const stored = new Map(body.shapes.map((s) => [s.id, s]));
  assert.equal(stored.size, 6);
  assert.equal('group' in stored.get(left), false, 'ungrouped shapes carry no group field');
  assert.equal(stored.get('left-copy').group, l.group, 'the server holds the copies\' group');
});
