// The page's selection gestures (protocol 1.7, P29) in Debian's real Chromium against a real
// snapboard-server: a drag of one of two shapes selected with Shift+click moves both in one `move`
// gesture naming them as `shapes`, which the watcher sees as one committed delta with both moved by the
// same offset; a drag of a group's member moves the whole group the same way; the frame around several
// selected shapes has corner handles that scale them all about its centre in one op, and Ctrl/⌘+Z undoes
// it in one step; a second page cannot drag a shape of a selection the first one holds, and is told so in
// words, as a refused begin is; a viewer's drag sends nothing. On a phone, a two-finger pinch on one of
// two Shift-selected shapes, or on a group's member, is one `scale` gesture naming them all, one commit
// scaling and turning them about the pinch centre, and one undo step; a pinch the server refuses says so
// and commits nothing. Each page's outgoing frames are recorded over CDP, and a second client watches the
// wire (support.mjs `watch`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describe } from '../../Sources/SnapboardWeb/page/history.js';
import { draggedIds, handledOf } from '../../Sources/SnapboardWeb/page/selection-frame.js';
import { refusals } from '../../Sources/SnapboardWeb/page/status.js';
import { until } from './support.mjs';
import * as shared from './page-support.mjs';
import { ops } from './page-support.mjs';

let server;
// Chromium and a real server for the file's tests; board pages, watchers and patient waits (page-support.mjs).
const { board, watcher, settled, snapped, patient } = shared.pageSuite((_, s) => { server = s; });

const selection = (page) => page.eval('[...snapboard.ui.selection].sort()');
const hint = (page) => page.eval("document.getElementById('hint').textContent");
const shapeOn = (page, id) => page.eval(`snapboard.client.replica.shapes.get('${id}')`);

/** A mouse click at a shape's centre, with Shift when `shift`. */
async function clickShape(page, shape, { shift = false } = {}) {
  const at = await page.screenOf(shape.x, shape.y);
  const modifiers = shift ? 8 : 0;
  await page.mouse('mouseMoved', at.x, at.y, { buttons: 0, button: 'none', modifiers });
  await page.mouse('mousePressed', at.x, at.y, { modifiers });
  await page.mouse('mouseReleased', at.x, at.y, { modifiers });
}

/** A mouse drag from a shape's centre by (dx, dy) canvas units; the button is left held unless `release`. */
async function dragShape(page, shape, dx, dy, { release = true } = {}) {
  const from = await page.screenOf(shape.x, shape.y), to = await page.screenOf(shape.x + dx, shape.y + dy);
  await page.drag(from.x, from.y, to.x, to.y, { release });
}

/** The committed deltas the watcher got since index `seen` up to a marker the page snaps afterwards. */
const commitsSince = (page, w, seen) => shared.commitsBeforeMarker(page, w, seen, { timeout: patient });

/**
 * The committed deltas the watcher got since index `seen`, once it has seen each op the page sent since
 * index `sent` that was acked (no marker: a marker of the page's own would be what its undo takes back).
 */
async function commitsOf(page, w, seen, sent) {
  await settled(page);
  const ids = ops(page.sent.slice(sent)).filter((m) => m.phase === undefined || m.phase === 'end').map((m) => m.id);
  await until('the watcher saw every commit', () => ids.every((id) => w.committed().some((d) => d.ops?.includes(id))), patient);
  return shared.committedSince(w, seen);
}

/** Asserts that `delta` carries each of `before`'s shapes moved by one and the same offset, not none; returns it. */
function movedAlike(delta, before) {
  const after = new Map(delta.shapes.map((s) => [s.id, s]));
  const offsets = before.map((s) => { assert.ok(after.has(s.id), `the delta carries ${s.id}`); return [after.get(s.id).x - s.x, after.get(s.id).y - s.y]; });
  for (const o of offsets) assert.deepEqual(o, offsets[0], 'every shape moved by the same offset');
  assert.notDeepEqual(offsets[0], [0, 0], 'and they moved');
  return offsets[0];
}

/** The selection gesture ops the page sent since index `sent`: each a move, scale or rotate naming `ids` as shapes. */
function selectionOps(page, sent, kind, ids) {
  const gestures = ops(page.sent.slice(sent)).filter((m) => m.op !== 'snap');
  assert.ok(gestures.length >= 2, 'a begin and an end at least');
  for (const m of gestures) {
    assert.equal(m.op, kind);
    assert.equal(m.shape, undefined, 'no single shape named');
    assert.deepEqual([...m.shapes].sort(), [...ids].sort(), 'every op names the whole selection');
  }
  assert.deepEqual([gestures[0].phase, gestures.at(-1).phase], ['begin', 'end']);
  return gestures;
}

test('[P29] what a drag of a selected shape moves, the frame of several with its handles, and arrange in the history in words', () => {
  const shapes = [{ id: 'a', kind: 'roundedRect', x: 100, y: 100, w: 40, h: 40, scale: 1, rotation: 0 }, { id: 'b', kind: 'oval', x: 300, y: 200, w: 40, h: 40, scale: 1, rotation: 0 }];
  assert.deepEqual(draggedIds(new Set(['a', 'b']), shapes, 'b'), ['a', 'b']);
  assert.deepEqual(draggedIds(new Set(['a']), shapes, 'a'), ['a'], 'one selected: itself');
  assert.deepEqual(draggedIds(new Set(['a']), shapes, 'b'), ['b'], 'a shape outside the selection: itself');
  assert.deepEqual(draggedIds(new Set(['a', 'gone']), shapes, 'a'), ['a'], 'ids of shapes not there do not count');
  const frame = handledOf(shapes, () => true);
  assert.deepEqual([frame.ids, frame.x, frame.y, frame.w, frame.h], [['a', 'b'], 200, 150, 240, 140]);
  assert.equal(handledOf(shapes, (id) => id !== 'b'), null, 'one held or locked: no handles');
  assert.equal(handledOf([shapes[0]], () => true), shapes[0], 'one shape: its own');
  const entry = (after) => ({ op: { type: 'arrange', placements: after, before: [{ id: 'a', center: { x: 1, y: 1 }, scale: 1, rotation: 0 }, { id: 'b', center: { x: 5, y: 1 }, scale: 1, rotation: 0 }] } });
  assert.equal(describe(entry([{ id: 'a', center: { x: 2, y: 1 }, scale: 1, rotation: 0 }, { id: 'b', center: { x: 6, y: 1 }, scale: 1, rotation: 0 }])), 'moved 2 shapes');
  assert.equal(describe(entry([{ id: 'a', center: { x: 0, y: 1 }, scale: 2, rotation: 0 }, { id: 'b', center: { x: 8, y: 1 }, scale: 2, rotation: 0 }])), 'moved and resized 2 shapes');
});

test('[P29] Shift+click two shapes and drag one: one selection gesture naming both, one committed delta moving both by the same offset', async () => {
  const w = await watcher('selection-drag');
  const page = await board('selection-drag', 'ann');
  const a = await snapped(page, 320, 320), b = await snapped(page, 512, 384, 'oval');
  await clickShape(page, a);
  await clickShape(page, b, { shift: true });
  assert.deepEqual(await selection(page), [a.id, b.id].sort());
  const seen = w.messages.length, sent = page.sent.length;
  await dragShape(page, b, 96, 64);
  await settled(page);
  const commits = await commitsSince(page, w, seen);
  assert.equal(commits.length, 1, 'exactly one committed delta');
  movedAlike(commits[0], [a, b]);
  const gestures = selectionOps(page, sent, 'move', [a.id, b.id]);
  assert.ok(gestures.some((m) => m.phase === 'update'), 'updates as it went');
  assert.deepEqual(commits[0].ops, [gestures.at(-1).id], 'the end committed');
  assert.deepEqual(await selection(page), [a.id, b.id].sort(), 'both stay selected');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('[P29] a drag of a group\'s member moves the whole group as one op', async () => {
  const w = await watcher('selection-group');
  const page = await board('selection-group', 'ann');
  const a = await snapped(page, 320, 320), b = await snapped(page, 448, 320, 'oval'), c = await snapped(page, 704, 512, 'star');
  await page.eval(`snapboard.client.group(['${a.id}', '${b.id}'])`);
  await settled(page);
  await page.waitFor('the group', `snapboard.client.replica.shapes.get('${a.id}')?.group !== undefined`);
  await clickShape(page, c);
  const seen = w.messages.length, sent = page.sent.length;
  await dragShape(page, a, 0, 128);
  await settled(page);
  const commits = await commitsSince(page, w, seen);
  assert.equal(commits.length, 1, 'one committed delta');
  const [dx, dy] = movedAlike(commits[0], [a, b]);
  assert.ok(dy > 64 && Math.abs(dx) < 16, `moved down (${dx}, ${dy})`);
  assert.equal(commits[0].shapes.some((s) => s.id === c.id), false, 'the shape outside the group stays');
  selectionOps(page, sent, 'move', [a.id, b.id]);
  assert.deepEqual(await selection(page), [a.id, b.id].sort(), 'the press selected the group');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('[P29] the selection\'s corner handle scales both shapes about its centre in one op, and Ctrl/⌘+Z undoes it in one step', async () => {
  const w = await watcher('selection-scale');
  const page = await board('selection-scale', 'ann');
  const a = await snapped(page, 384, 384), b = await snapped(page, 640, 384, 'oval');
  await clickShape(page, a);
  await clickShape(page, b, { shift: true });
  await page.eval('snapboard.invalidate(); new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const h = await page.eval(`(async () => {
    const { handlesOf, selectedShapes } = await import('/web/page/selection.js');
    const { handledOf } = await import('/web/page/selection-frame.js');
    const r = document.getElementById('board').getBoundingClientRect();
    const frame = handledOf(selectedShapes(snapboard.ui.selection, snapboard.client.drawingOrder()), () => true);
    const corner = handlesOf(frame, snapboard.view).corners[2];
    const centre = snapboard.view.toScreen({ x: frame.x, y: frame.y });
    return { x: corner.x + r.left, y: corner.y + r.top, cx: centre.x + r.left, cy: centre.y + r.top };
  })()`);
  // The bottom-right corner dragged half as far again from the centre: about 1.5×.
  let seen = w.messages.length, sent = page.sent.length;
  await page.drag(h.x, h.y, h.x + (h.x - h.cx) / 2, h.y + (h.y - h.cy) / 2);
  let commits = await commitsOf(page, w, seen, sent);
  assert.equal(commits.length, 1, 'one committed delta');
  const scaled = new Map(commits[0].shapes.map((s) => [s.id, s]));
  for (const s of [a, b]) assert.ok(Math.abs(scaled.get(s.id).scale - 1.5) < 0.15, `${s.id} scaled ${scaled.get(s.id).scale}`);
  assert.ok(scaled.get(a.id).x < a.x && scaled.get(b.id).x > b.x, 'each further from the centre');
  const gestures = selectionOps(page, sent, 'scale', [a.id, b.id]);
  const centre = { x: (a.x + b.x) / 2, y: a.y };
  for (const m of gestures.filter((g) => g.ax !== undefined)) assert.ok(Math.abs(m.ax - centre.x) < 1 && Math.abs(m.ay - centre.y) < 1, 'about the centre');

  // One undo, one op: both back.
  seen = w.messages.length;
  sent = page.sent.length;
  await page.key('z', { modifiers: ['ctrl'] });
  await until('the undo sent', () => ops(page.sent.slice(sent)).length > 0, patient);
  commits = await commitsOf(page, w, seen, sent);
  assert.deepEqual(ops(page.sent.slice(sent)).map((m) => m.op), ['undo']);
  assert.equal(commits.length, 1, 'one step');
  const back = new Map(commits[0].shapes.map((s) => [s.id, s]));
  for (const s of [a, b]) assert.deepEqual([back.get(s.id).x, back.get(s.id).y, back.get(s.id).scale], [s.x, s.y, 1], `${s.id} back`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('[P29] while ann holds a selection, ben\'s drag of one of its shapes is refused and told in words; a refused selection begin says why and moves nothing', async () => {
  const w = await watcher('selection-held');
  const ann = await board('selection-held', 'ann');
  const a = await snapped(ann, 320, 320), b = await snapped(ann, 512, 320, 'oval');
  const ben = await board('selection-held', 'ben');
  await ben.waitFor('ben has both', `snapboard.client.replica.shapes.size === 2`);
  await clickShape(ann, a);
  await clickShape(ann, b, { shift: true });
  await dragShape(ann, a, 64, 64, { release: false });
  await ben.waitFor('ben sees both leased', `['${a.id}', '${b.id}'].every((id) => snapboard.client.replica.leases[id] !== undefined)`);
  const sent = ben.sent.length;
  await dragShape(ben, await shapeOn(ben, b.id), 0, 128);
  assert.match(await hint(ben), /ann is changing that shape/);
  // A begin the server refuses (the lease taken between a look and a press) says the refusal's sentence.
  const refused = await ben.eval(`(async () => {
    const g = snapboard.client.gesture('move', ['${a.id}', '${b.id}']);
    for (let i = 0; i < 200 && !g.refused; i++) await new Promise((r) => setTimeout(r, 25));
    g.update({ dx: 50, dy: 0 });
    return [g.refused, g.end({ dx: 50, dy: 0 })];
  })()`);
  assert.deepEqual(refused, ['shape_locked', null], 'refused whole, and its end sends nothing');
  await ben.waitFor('the refusal said', `document.getElementById('hint').textContent.includes(${JSON.stringify(refusals.shape_locked)})`);
  const benOps = ops(ben.sent.slice(sent));
  assert.deepEqual(benOps.map((m) => [m.op, m.phase, m.shapes ?? m.shape]), [['move', 'begin', [a.id, b.id]]], 'only the refused begin');
  const at = await ann.screenOf(a.x + 64, a.y + 64);
  await ann.mouse('mouseReleased', at.x, at.y);
  await settled(ann);
  // Since the watcher's welcome: the two snaps, then ann's one move of both; nothing of ben's.
  const commits = await commitsSince(ann, w, 0);
  assert.deepEqual(commits.map((d) => d.shapes.map((s) => s.id)), [[a.id], [b.id], [a.id, b.id]], 'ann\'s move alone committed');
  assert.deepEqual(ben.errors, []);
  await ben.close();
  await ann.close();
});

test('[P29] a viewer\'s drag of a selection of two sends nothing', async () => {
  const w = await watcher('selection-viewer');
  const editor = await board('selection-viewer', 'ann');
  const a = await snapped(editor, 320, 320), b = await snapped(editor, 512, 320, 'oval');
  const page = await board('selection-viewer', 'vic', { query: '&role=viewer' });
  await page.waitFor('vic has both', 'snapboard.client.replica.shapes.size === 2');
  await clickShape(page, a);
  await clickShape(page, b, { shift: true });
  assert.deepEqual(await selection(page), [a.id, b.id].sort(), 'a viewer selects');
  const sent = page.sent.length, seen = w.messages.length;
  await dragShape(page, a, 96, 0);
  const commits = await commitsSince(editor, w, seen);
  assert.deepEqual(commits, [], 'nothing committed');
  assert.deepEqual(ops(page.sent.slice(sent)), [], 'the viewer sent no op');
  assert.equal(await page.eval('snapboard.client.pending.ops.length'), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
  await editor.close();
});

/** A phone-sized board page with touch (390 × 844), as the page-input pinch tests use. */
const phone = (canvas, name) => board(canvas, name, { width: 390, height: 844, touch: true });

/** A tap at a shape's centre; with `shift`, Shift held (which adds it to the selection). */
async function tapShape(page, shape, { shift = false } = {}) {
  const at = await page.screenOf(shape.x, shape.y);
  const modifiers = shift ? 8 : 0;
  await page.call('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: at.x, y: at.y, id: 1 }], modifiers });
  await page.call('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [], modifiers });
}

/**
 * Two fingers that go down `from` CSS pixels either side of a shape's centre, on a level, and spread
 * step by step to `to` either side while turning `turn` radians, then lift: a pinch of `to / from` about
 * the shape's centre. Returns where on the canvas the point between them went down.
 */
async function pinchShape(page, shape, from, to, turn = 0) {
  const c = await page.screenOf(shape.x, shape.y);
  const fingers = (r, a = 0) => [{ x: c.x - r * Math.cos(a), y: c.y - r * Math.sin(a), id: 1 }, { x: c.x + r * Math.cos(a), y: c.y + r * Math.sin(a), id: 2 }];
  await page.touch('touchStart', [fingers(from)[0]]);
  await page.touch('touchStart', fingers(from));
  for (let i = 1; i <= 8; i++) {
    await page.touch('touchMove', fingers(from + (to - from) * i / 8, turn * i / 8));
    await new Promise((r) => setTimeout(r, 20));
  }
  await page.touch('touchEnd', []);
  return page.eval(`(() => { const r = document.getElementById('board').getBoundingClientRect();
    return snapboard.view.toCanvas({ x: ${c.x} - r.left, y: ${c.y} - r.top }); })()`);
}

/**
 * Asserts that the pinch ops the page sent since index `sent` are one selection `scale` gesture naming
 * `ids`, every update about one anchor near `centre` with a factor, and with a turn when `turned` (a
 * pinch that has not turned sends none); returns the anchor.
 */
function pinchOps(page, sent, ids, centre, turned = false) {
  const gestures = selectionOps(page, sent, 'scale', ids);
  assert.deepEqual(gestures.map((m) => m.phase).filter((p) => p !== 'update'), ['begin', 'end'], 'one gesture');
  const updates = gestures.filter((m) => m.phase === 'update');
  assert.ok(updates.length > 0, 'updates as it went');
  for (const m of updates) {
    assert.equal(typeof m.factor, 'number');
    if (turned) assert.equal(typeof m.radians, 'number');
    assert.deepEqual([m.ax, m.ay], [updates[0].ax, updates[0].ay], 'one anchor throughout');
  }
  const anchor = { x: updates[0].ax, y: updates[0].ay };
  assert.ok(Math.hypot(anchor.x - centre.x, anchor.y - centre.y) < 4, `the anchor ${JSON.stringify(anchor)} is the pinch centre ${JSON.stringify(centre)}`);
  return anchor;
}

/**
 * Asserts that `delta` carries each of `before`'s shapes (all level) scaled by one factor, about `factor`,
 * and turned by one angle, about `turn` radians, about `anchor`.
 */
function scaledAbout(delta, before, anchor, factor, turn = 0) {
  const after = new Map(delta.shapes.map((s) => [s.id, s]));
  const f = after.get(before[0].id).scale / before[0].scale, r = after.get(before[0].id).rotation;
  assert.ok(Math.abs(f - factor) < 0.1, `scaled about ${factor}×: ${f}`);
  assert.ok(Math.abs(r - turn) < 0.15, `turned about ${turn}: ${r}`);
  for (const s of before) {
    const t = after.get(s.id);
    assert.ok(t, `the delta carries ${s.id}`);
    assert.ok(Math.abs(t.scale / s.scale - f) < 1e-6, `${s.id} scaled alike`);
    assert.ok(Math.abs(t.rotation - r) < 1e-9, `${s.id} turned alike`);
    const [dx, dy] = [s.x - anchor.x, s.y - anchor.y];
    const want = { x: anchor.x + f * (dx * Math.cos(r) - dy * Math.sin(r)), y: anchor.y + f * (dx * Math.sin(r) + dy * Math.cos(r)) };
    assert.ok(Math.hypot(t.x - want.x, t.y - want.y) < 1, `${s.id} at ${t.x}, ${t.y}, about the pinch centre: ${want.x}, ${want.y}`);
  }
  return f;
}

test('[P29] on a phone, a two-finger pinch on one of two Shift-selected shapes scales and turns both about the pinch centre in one op, and Ctrl+Z undoes it in one step', async () => {
  const w = await watcher('selection-pinch');
  const page = await phone('selection-pinch', 'pia');
  const a = await snapped(page, 448, 384), b = await snapped(page, 576, 384, 'oval');
  await tapShape(page, a);
  await tapShape(page, b, { shift: true });
  await page.waitFor('both selected', 'snapboard.ui.selection.size === 2');
  let seen = w.messages.length, sent = page.sent.length;
  const centre = await pinchShape(page, b, 8, 16, 0.5);
  let commits = await commitsOf(page, w, seen, sent);
  assert.equal(commits.length, 1, 'exactly one committed delta');
  const anchor = pinchOps(page, sent, [a.id, b.id], centre, true);
  scaledAbout(commits[0], [a, b], anchor, 2, 0.5);
  assert.deepEqual(await selection(page), [a.id, b.id].sort(), 'both stay selected');

  seen = w.messages.length;
  sent = page.sent.length;
  await page.key('z', { modifiers: ['ctrl'] });
  await until('the undo sent', () => ops(page.sent.slice(sent)).length > 0, patient);
  commits = await commitsOf(page, w, seen, sent);
  assert.deepEqual(ops(page.sent.slice(sent)).map((m) => m.op), ['undo']);
  assert.equal(commits.length, 1, 'one step');
  const back = new Map(commits[0].shapes.map((s) => [s.id, s]));
  for (const s of [a, b]) assert.deepEqual([back.get(s.id).x, back.get(s.id).y, back.get(s.id).scale], [s.x, s.y, s.scale], `${s.id} back`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('[P29] on a phone, a pinch on a group\'s member scales the group in one op and the Undo button puts it back; a shape outside the selection pinches alone', async () => {
  const w = await watcher('selection-pinch-group');
  const page = await phone('selection-pinch-group', 'pia');
  const a = await snapped(page, 448, 320), b = await snapped(page, 576, 320, 'oval'), c = await snapped(page, 512, 576, 'star');
  await page.eval(`snapboard.client.group(['${a.id}', '${b.id}'])`);
  await settled(page);
  await page.waitFor('the group', `snapboard.client.replica.shapes.get('${a.id}')?.group !== undefined`);
  await page.eval('snapboard.actions.deselect()');
  let seen = w.messages.length, sent = page.sent.length;
  // The first finger on a member selects the group; the second makes it a pinch of them all.
  const centre = await pinchShape(page, a, 8, 16);
  let commits = await commitsOf(page, w, seen, sent);
  assert.equal(commits.length, 1, 'one committed delta');
  scaledAbout(commits[0], [a, b], pinchOps(page, sent, [a.id, b.id], centre), 2);
  assert.equal(commits[0].shapes.some((s) => s.id === c.id), false, 'the shape outside the group stays');

  seen = w.messages.length;
  sent = page.sent.length;
  const undo = await page.eval("(() => { const b = document.getElementById('undo-button').getBoundingClientRect(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; })()");
  await page.touch('touchStart', [{ x: undo.x, y: undo.y, id: 1 }]);
  await page.touch('touchEnd', []);
  await until('the undo sent', () => ops(page.sent.slice(sent)).length > 0, patient);
  commits = await commitsOf(page, w, seen, sent);
  assert.deepEqual(ops(page.sent.slice(sent)).map((m) => m.op), ['undo']);
  assert.equal(commits.length, 1, 'one step');
  const back = new Map(commits[0].shapes.map((s) => [s.id, s]));
  for (const s of [a, b]) assert.deepEqual([back.get(s.id).x, back.get(s.id).y, back.get(s.id).scale], [s.x, s.y, s.scale], `${s.id} back`);

  // A shape outside the selection: the press selects it alone, and the pinch names it alone, as ever.
  seen = w.messages.length;
  sent = page.sent.length;
  await pinchShape(page, c, 8, 16);
  commits = await commitsOf(page, w, seen, sent);
  const alone = ops(page.sent.slice(sent));
  assert.ok(alone.length >= 2 && alone.every((m) => m.op === 'scale' && m.shape === c.id && m.shapes === undefined), `one shape's pinch: ${JSON.stringify(alone)}`);
  assert.deepEqual(commits.map((d) => d.shapes.map((s) => s.id)), [[c.id]]);
  assert.deepEqual(await selection(page), [c.id]);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('[P29] on a phone, a pinch of a selection the server refuses says the refusal and changes nothing; one someone holds zooms the view and says who', async () => {
  const w = await watcher('selection-pinch-held');
  const ann = await board('selection-pinch-held', 'ann');
  const a = await snapped(ann, 448, 384), b = await snapped(ann, 576, 384, 'oval');
  const page = await phone('selection-pinch-held', 'pia');
  await page.waitFor('pia has both', 'snapboard.client.replica.shapes.size === 2');
  await dragShape(ann, b, 64, 0, { release: false });
  await page.waitFor('pia sees b leased', `snapboard.client.replica.leases['${b.id}'] !== undefined`);
  await tapShape(page, a);
  await tapShape(page, b, { shift: true });
  await page.waitFor('both selected', 'snapboard.ui.selection.size === 2');

  // Held, as the page knows: no op, the fingers zoom the view, and the page says who holds it.
  let sent = page.sent.length;
  const zoom = await page.eval('snapboard.view.scale');
  await pinchShape(page, a, 8, 16);
  assert.match(await hint(page), /ann is changing that shape/);
  assert.ok(await page.eval('snapboard.view.scale') > zoom, 'the view zoomed');
  assert.deepEqual(ops(page.sent.slice(sent)), [], 'nothing sent');
  await page.eval('snapboard.view.place(snapboard.view.toCanvas({ x: 0, y: 0 }), ' + zoom + ', 0, 0)');

  // The lease taken between a look and a press: the server refuses the begin, the page says so, nothing moves.
  sent = page.sent.length;
  const seen = w.messages.length;
  await page.eval(`delete snapboard.client.replica.leases['${b.id}']`);
  await pinchShape(page, await shapeOn(page, a.id), 8, 16);
  await page.waitFor('the refusal said', `document.getElementById('hint').textContent.includes(${JSON.stringify(refusals.shape_locked)})`);
  await settled(page);
  const pinch = ops(page.sent.slice(sent));
  assert.deepEqual(pinch.map((m) => [m.op, [...m.shapes].sort()]), pinch.map(() => ['scale', [a.id, b.id].sort()]), 'a pinch of both');
  // The begin, then only what went out before its refusal came back: no end, so nothing to commit.
  assert.deepEqual([...new Set(pinch.map((m) => m.phase))], pinch.length > 1 ? ['begin', 'update'] : ['begin']);
  assert.match(await hint(page), /Someone else is changing that shape/, 'the begin\'s refusal stays said, not an echo of it');
  const mine = await shapeOn(page, a.id);
  assert.deepEqual([mine.x, mine.y, mine.scale], [a.x, a.y, a.scale], 'a stays');
  const at = await ann.screenOf(b.x + 64, b.y);
  await ann.mouse('mouseReleased', at.x, at.y);
  await settled(ann);
  const commits = await commitsSince(ann, w, seen);
  assert.deepEqual(commits.map((d) => d.shapes.map((s) => s.id)), [[b.id]], 'ann\'s move alone committed');
  assert.deepEqual(page.errors, []);
  await page.close();
  await ann.close();
});
