// The JavaScript client library's pure parts: replica, pending ops, backoff, gesture arithmetic, viewport.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as library from '../../Sources/SnapboardWeb/lib/index.js';
import { commits, PendingOps, predict, progress, ReconnectPolicy, remainder, Replica, span, turn, Viewport } from '../../Sources/SnapboardWeb/lib/index.js';

const shape = (id, extra = {}) => ({ id, kind: 'dot', x: 10, y: 10, w: 24, h: 24, scale: 1, rotation: 0, fill: { h: 0, s: 0, b: 0, a: 1 }, hatch: 'none', z: 0, ...extra });
const welcome = (extra = {}) => ({ type: 'welcome', protocol: 1, session: 1, canvas: 'c', seq: 3, resumed: false, grid: { width: 100, height: 80, x: { pitch: 10 }, y: { pitch: 10 } }, snapping: { angleStep: Math.PI / 12 }, shapes: [shape('a')], sessions: [{ session: 1, name: 'ann', color: '#112233' }], leases: {}, ...extra });

test('a replica follows welcomes, deltas, presence and cursors as PROTOCOL.md says', () => {
  const r = new Replica();
  assert.deepEqual(r.apply(welcome()), { kind: 'welcome', resumed: false });
  assert.equal(r.seq, 3);
  assert.equal(r.shapes.size, 1);
  assert.equal(r.width, 100);
  r.apply({ type: 'delta', seq: 4, by: 1, ops: ['x'], shapes: [shape('b', { z: 1 })], removed: [], cleared: false, events: [{ type: 'guide', axis: 'x', at: 5, from: 0, to: 9, target: 'a' }, { type: 'haptic', style: 'light', reason: 'edge' }], live: true });
  assert.deepEqual(r.drawingOrder().map((s) => s.id), ['a', 'b']);
  assert.equal(r.guides.length, 1);
  r.apply({ type: 'delta', seq: 5, by: 1, ops: [], shapes: [], removed: ['a'], cleared: false, events: [], live: false });
  assert.deepEqual([...r.shapes.keys()], ['b']);
  assert.equal(r.guides.length, 0, 'a delta without guides clears them');
  r.apply({ type: 'presence', event: 'join', session: 2, name: 'ben', color: '#445566', sessions: [{ session: 1, name: 'ann', color: '#112233' }, { session: 2, name: 'ben', color: '#445566' }], leases: { b: 2 } });
  assert.equal(r.sessions.get(2).color, '#445566');
  assert.deepEqual(r.leases, { b: 2 });
  r.apply({ type: 'cursors', cursors: [{ session: 2, x: 1, y: 2 }, { session: 1, x: 9, y: 9 }] });
  assert.deepEqual([...r.cursors], [[2, { x: 1, y: 2 }]], 'never its own cursor');
  r.apply({ type: 'presence', event: 'leave', session: 2, name: 'ben', color: '#445566', sessions: [{ session: 1, name: 'ann', color: '#112233' }], leases: {} });
  assert.equal(r.cursors.size, 0, 'a leave removes the cursor');
  // 1.2 (revision=2): joins and leaves are the change alone.
  r.apply({ type: 'presence', event: 'join', session: 3, name: 'cy', color: '#778899', leases: {} });
  assert.deepEqual([...r.sessions.keys()], [1, 3]);
  r.apply({ type: 'presence', event: 'leave', session: 1, name: 'ann', color: '#112233', leases: {} });
  assert.deepEqual([...r.sessions.keys()], [3]);
  r.apply({ type: 'delta', seq: 6, by: 1, ops: [], shapes: [], removed: [], cleared: true, events: [], live: false });
  assert.equal(r.shapes.size, 0);
  r.apply(welcome({ resumed: true, shapes: [], seq: 9, epoch: '00000000000000ab' }));
  assert.equal(r.seq, 9);
  assert.equal(r.epoch, '00000000000000ab', 'the run since belongs to, sent back to resume (P16)');
});

test('every welcome, a resume\'s too, starts presence over: no cursor, session or lease held under an old session id stays', () => {
  const r = new Replica();
  r.apply(welcome({ sessions: [{ session: 1, name: 'ann', color: '#112233' }, { session: 2, name: 'ben', color: '#445566' }, { session: 3, name: 'cy', color: '#778899' }], leases: { a: 2 } }));
  r.apply({ type: 'cursors', cursors: [{ session: 2, x: 1, y: 2 }, { session: 3, x: 5, y: 5 }] });
  assert.equal(r.cursors.size, 2);
  // A restarted server numbers sessions from 1 again: ann comes back as 3, cy as 2; the welcome has no leases field.
  const { leases, ...restarted } = welcome({ resumed: true, session: 3, sessions: [{ session: 1, name: 'ben', color: '#445566' }, { session: 2, name: 'cy', color: '#778899' }, { session: 3, name: 'ann', color: '#112233' }] });
  assert.deepEqual(r.apply(restarted), { kind: 'welcome', resumed: true });
  assert.deepEqual([...r.cursors], [], "ben's old cursor would now be cy's, cy's old one ann's own");
  assert.deepEqual([...r.sessions].map(([id, who]) => [id, who.name]), [[1, 'ben'], [2, 'cy'], [3, 'ann']]);
  assert.deepEqual(r.leases, {});
});

test('1.4: a live delta\'s placements move the shapes the replica holds, keep the rest of each shape, and skip unknown ids', () => {
  const r = new Replica();
  r.apply(welcome({ shapes: [shape('a', { fill: { h: 0.5, s: 1, b: 1, a: 1 }, hatch: 'cross' }), shape('b')] }));
  const change = r.apply({ type: 'delta', seq: 3, by: 1, ops: ['u1'], placed: [['a', 40, 50, 24, 24, 2, 0.5, 3], ['gone', 1, 1, 1, 1, 1, 0, 0]], events: [{ type: 'haptic', style: 'light', reason: 'edge' }], live: true });
  assert.deepEqual(change.shapes, ['a'], 'the ids it changed, for the haptic');
  assert.deepEqual(r.shapes.get('a'), shape('a', { x: 40, y: 50, scale: 2, rotation: 0.5, z: 3, fill: { h: 0.5, s: 1, b: 1, a: 1 }, hatch: 'cross' }));
  assert.deepEqual(r.shapes.get('b'), shape('b'));
  assert.ok(!r.shapes.has('gone'));
  // The committed state under the live one is what a reconnect restores (liveBase).
  assert.deepEqual(r.liveBase.get('a'), shape('a', { fill: { h: 0.5, s: 1, b: 1, a: 1 }, hatch: 'cross' }));
  r.apply({ type: 'delta', seq: 4, by: 1, ops: ['e1'], shapes: [shape('a', { x: 41, y: 50 })], removed: [], cleared: false, events: [], live: false });
  assert.equal(r.shapes.get('a').x, 41);
  assert.ok(!r.liveBase.has('a'));
});

test('only committing ops wait for an answer, and a gesture end is resent as its one-shot remainder', () => {
  assert.ok(commits({ op: 'snap' }) && commits({ op: 'move' }) && commits({ op: 'move', phase: 'end' }));
  assert.ok(commits({ op: 'delete', shapes: ['a'] }) && commits({ op: 'undo' }) && commits({ op: 'redo' }));
  assert.ok(!commits({ op: 'move', phase: 'begin' }) && !commits({ op: 'move', phase: 'update' }));
  const pending = new PendingOps('p');
  const ids = [pending.makeId(), pending.makeId(), pending.makeId()];
  assert.deepEqual(ids, ['p-1', 'p-2', 'p-3']);
  pending.sent({ type: 'op', id: 'p-1', op: 'snap', x: 1, y: 1 });
  // A gesture's end is resent as what is left of it from the shape as the replica has it then.
  pending.sent({ type: 'op', id: 'p-2', op: 'move', shape: 'a', phase: 'end', dx: 10, dy: 0 }, (replica) => ({ op: 'move', shape: 'a', dx: 14 - replica.x, dy: 0 }));
  pending.sent({ type: 'op', id: 'p-3', op: 'clear' });
  assert.equal(pending.answered('p-1').op, 'snap');
  assert.equal(pending.answered('nope'), undefined);
  assert.deepEqual(pending.toResend({ x: 4 }), [{ type: 'op', id: 'p-2', op: 'move', shape: 'a', dx: 10, dy: 0 }, { type: 'op', id: 'p-3', op: 'clear' }]);
});

test('the backoff doubles up to its cap, with jitter in [½, 1] of it, and resets on connecting', () => {
  const policy = new ReconnectPolicy(0.25, 8);
  const delays = Array.from({ length: 8 }, () => policy.nextDelay(1));
  assert.deepEqual(delays, [0.25, 0.5, 1, 2, 4, 8, 8, 8]);
  assert.equal(policy.nextDelay(0), 4);
  policy.connected();
  assert.equal(policy.nextDelay(0.5), 0.25 * 0.75);
});

test('what is left of a gesture composes with what the server saw, and a prediction pinches about the anchor', () => {
  assert.deepEqual(remainder('move', { dx: 10, dy: -4 }, { dx: 3, dy: 1 }), { dx: 7, dy: -5 });
  const origin = shape('a', { x: 50, y: 50, scale: 2, rotation: 6 });
  assert.deepEqual(progress('move', origin, { ...origin, x: 60, y: 45 }), { dx: 10, dy: -5 });
  const done = progress('scale', origin, { ...origin, scale: 3, rotation: 0.2 });
  assert.equal(done.factor, 1.5);
  assert.ok(Math.abs(done.radians - (0.2 + 2 * Math.PI - 6)) < 1e-12, 'the short way round');
  assert.equal(remainder('scale', { factor: 3, ax: 1, ay: 2 }, { factor: 1.5 }).factor, 2);
  assert.equal(remainder('rotate', { radians: 1 }, { radians: 0.25 }).radians, 0.75);
  const s = shape('a', { x: 50, y: 50 });
  const pinched = predict(s, 'scale', { factor: 2, ax: 40, ay: 50 });
  assert.deepEqual([pinched.x, pinched.y, pinched.scale], [60, 50, 2]);
  assert.ok(Math.abs(predict(s, 'rotate', { radians: -Math.PI / 2 }).rotation - 1.5 * Math.PI) < 1e-12);
});

test('the viewport keeps the point under the cursor while zooming, and a twist never jumps a full turn', () => {
  const v = new Viewport();
  v.fit(1000, 500, 1032, 532);
  assert.equal(v.scale, 1);
  const before = v.toCanvas({ x: 300, y: 200 });
  v.zoomAbout(2.5, 300, 200);
  const after = v.toCanvas({ x: 300, y: 200 });
  assert.ok(Math.abs(before.x - after.x) < 1e-9 && Math.abs(before.y - after.y) < 1e-9);
  assert.ok(Math.abs(turn(3, -3) - (2 * Math.PI - 6)) < 1e-12);
  const sp = span({ x: 0, y: 0 }, { x: 0, y: 10 });
  assert.deepEqual([sp.distance, sp.mid.y, sp.angle], [10, 5, Math.PI / 2]);
});

test('lib/index.js lists the public API: the client, its parts, the HTTP API, geometry, looks and the viewport', () => {
  assert.deepEqual(Object.keys(library).sort(), [
    'APIError', 'CLOSE_CANVAS_DELETED', 'CLOSE_CANVAS_REPLACED', 'CLOSE_STORAGE_FULL', 'CLOSE_TOKEN_EXPIRED', 'Gesture', 'PendingOps',
    'REVISION', 'ReconnectPolicy', 'Replica', 'SnapboardAPI', 'SnapboardClient', 'Viewport', 'bounds', 'circleSegments', 'colorHex', 'commits',
    'connectorFrame', 'contains', 'contours', 'cornerRadius', 'cssColor', 'defaultFrame', 'endpoints', 'fillFromColor', 'fractalCircles',
    'fractalRadius', 'gridLines', 'hexOfFill', 'isConnector', 'localVertices', 'lookDefaults', 'lookOf', 'maxScale', 'minScale', 'palette', 'predict', 'predictSelection', 'predictSnap',
    'problemFor', 'progress', 'protocolVersion', 'remainder', 'snapToLines', 'span', 'styleRanges', 'transform', 'turn',
  ]);
});
