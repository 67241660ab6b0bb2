// The page's connectors (protocol 1.7, P28) in Debian's real Chromium against a real snapboard-server:
// the Arrow tool draws an arrow by a drag from one shape to another (one `connect` op, its ends the press
// and the release, which the server binds); a move of a shape carries the arrow in the same commit; a
// selected arrow's end handle drags its end onto another shape (one `endpoint` gesture, with guides);
// lines and arrows are drawn as lines, in words in the history and refusals; a viewer has no connector
// tool, and a phone keeps its toolbar in one row. Each page's outgoing frames are recorded over CDP, and
// a second client watches the wire (support.mjs `watch`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endpoints } from '../../Sources/SnapboardWeb/lib/index.js';
import { describe } from '../../Sources/SnapboardWeb/page/history.js';
import { handleAt, handlesOf } from '../../Sources/SnapboardWeb/page/selection.js';
import { arrowHeadLength } from '../../Sources/SnapboardWeb/page/shape-drawing.js';
import { refusalText } from '../../Sources/SnapboardWeb/page/status.js';
import { until } from './support.mjs';
import * as shared from './page-support.mjs';
import { dragThrough, ops } from './page-support.mjs';

let server;
// Chromium and a real server for the file's tests; board pages, watchers and patient waits (page-support.mjs).
const { board, watcher, settled, snapped, patient } = shared.pageSuite((_, s) => { server = s; });

const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const press = (page, selector) => page.eval(`document.querySelector('${selector}').click()`);
const type = (page, text) => page.call('Input.insertText', { text });
const isShown = (page, selector) => page.eval(`(() => { const e = document.querySelector('${selector}'); return !!e && e.getClientRects().length > 0; })()`);

/** The watcher's shapes as its welcome and committed deltas leave them, by id. */
function watched(w) {
  const shapes = new Map();
  for (const m of w.messages) {
    if (m.type === 'welcome') for (const s of m.shapes ?? []) shapes.set(s.id, s);
    if (m.type === 'delta' && !m.live) {
      for (const s of m.shapes ?? []) shapes.set(s.id, s);
      for (const id of m.removed ?? []) shapes.delete(id);
    }
  }
  return shapes;
}

const near = (p, q, reach, what) => assert.ok(Math.hypot(p.x - q.x, p.y - q.y) <= reach, `${what}: (${p.x}, ${p.y}) is not within ${reach} of (${q.x}, ${q.y})`);

test('[P28] the end handles of a selected connector, the head\'s size, and history and refusals in words', () => {
  const view = { scale: 1, toScreen: (p) => p, toCanvas: (p) => p };
  const arrow = { id: 'a', kind: 'arrow', x: 400, y: 200, w: 200, h: 16, scale: 1, rotation: 0, z: 0 };
  const h = handlesOf(arrow, view);
  assert.deepEqual(h.ends, [{ x: 300, y: 200, end: 'from' }, { x: 500, y: 200, end: 'to' }]);
  assert.deepEqual([h.corners, h.knob], [[], null], 'no corners and no knob');
  assert.deepEqual(handleAt(arrow, view, { x: 497, y: 203 }, 8), { kind: 'endpoint', end: 'to' });
  assert.equal(handleAt(arrow, view, { x: 400, y: 200 }, 8), null, 'the middle is the body, which moves');
  assert.equal(arrowHeadLength(2.5), 10, 'at least 10 units');
  assert.equal(arrowHeadLength(5), 20, 'proportional to the width');
  assert.equal(describe({ op: { type: 'create', shape: { kind: 'arrow' } } }), 'drew an arrow');
  assert.equal(describe({ op: { type: 'create', shape: { kind: 'line' } } }), 'drew a line');
  assert.equal(describe({ op: { type: 'reconnect', shape: { id: 'a', kind: 'arrow' }, before: {} } }), 'reconnected an arrow');
  assert.equal(describe({ op: { type: 'create', shape: { kind: 'star' } } }), 'added a star');
  for (const code of ['bad_shape', 'out_of_bounds', 'unknown_shape', 'out_of_range', 'bad_shape_id']) {
    const text = refusalText(code, 'the server\'s own words', 'connect');
    assert.match(text, /line|arrow|connector/i, `${code}: ${text}`);
    assert.ok(!text.includes(code) && !text.includes('own words'), `${code} reads in words: ${text}`);
  }
});

test('acceptance [P28]: a note with text and an arrow drawn from it to another shape; the watcher sees both, the arrow bound to the two; a move carries it; its end handle rebinds it', async () => {
  const canvas = 'connectors-accept';
  const w = await watcher(canvas);
  const page = await board(canvas, 'ann');

  // A note, made and written in with the Note tool.
  await press(page, '#kinds [data-kind="note"]');
  const at = await page.screenOf(256, 256);
  await page.click(at.x, at.y);
  await page.waitFor('the editor open over the new note', "document.activeElement?.classList.contains('text-editor')", patient);
  await type(page, 'Plan');
  await pause(300);
  await page.key('Enter', { modifiers: ['ctrl'] });
  await settled(page);
  const note = await until('the watcher sees the note with its text', () => [...watched(w).values()].find((s) => s.kind === 'note' && s.text === 'Plan'), patient);
  const box = await snapped(page, 704, 256, 'roundedRect');
  assert.ok(box, 'a second shape');

  // The Arrow tool: a drag from the note's middle to the box's middle is one connect op.
  await press(page, '#kinds [data-kind="arrow"]');
  assert.equal(await page.eval('snapboard.toolbar.kind'), 'arrow');
  let sent = page.sent.length;
  const from = await page.screenOf(note.x, note.y), to = await page.screenOf(box.x, box.y);
  await dragThrough(page, [from, { x: from.x + 30, y: from.y + 10 }, { x: (from.x + to.x) / 2, y: from.y + 20 }, { x: to.x - 20, y: to.y }, to]);
  const [connect, ...more] = await until('the connect sent', () => ops(page.sent.slice(sent)).length > 0 && ops(page.sent.slice(sent)), patient);
  assert.deepEqual(more, [], 'one op');
  assert.equal(connect.op, 'connect');
  assert.equal(connect.shape.kind, 'arrow');
  near(connect.from, note, 1.5, 'from is the press');
  near(connect.to, box, 1.5, 'to is the release');
  const arrowId = connect.shapeId;
  assert.ok(arrowId, 'the page names the arrow, to select it');
  const arrow = await until('the watcher sees the arrow', () => watched(w).get(arrowId), patient);
  assert.equal(arrow.kind, 'arrow');
  assert.equal(arrow.from?.shape, note.id, 'from bound to the note');
  assert.equal(arrow.to?.shape, box.id, 'to bound to the box');
  assert.equal(watched(w).get(note.id).text, 'Plan', 'the watcher has the note\'s text');
  await settled(page);
  assert.deepEqual(await page.eval('[...snapboard.ui.selection]'), [arrowId], 'the new arrow is selected');

  // Back to a shape tool: a drag on the box moves it, and the arrow's head follows in the same commit.
  await press(page, '#kinds [data-kind="roundedRect"]');
  await page.eval('snapboard.actions.deselect()');
  sent = page.sent.length;
  const seen = w.messages.length;
  const grab = await page.screenOf(box.x, box.y + 40);
  await dragThrough(page, [grab, { x: grab.x + 20, y: grab.y }, { x: grab.x + 60, y: grab.y + 20 }, { x: grab.x + 100, y: grab.y + 40 }]);
  await settled(page);
  const moveEnd = ops(page.sent.slice(sent)).find((m) => m.op === 'move' && m.phase === 'end');
  assert.ok(moveEnd, 'a move gesture');
  const carried = await until('the move committed', () => shared.committedSince(w, seen).find((d) => d.ops?.includes(moveEnd.id)), patient);
  const ids = carried.shapes.map((s) => s.id);
  assert.ok(ids.includes(box.id) && ids.includes(arrowId), `the arrow is laid again in the box's commit: ${ids}`);
  const movedBox = carried.shapes.find((s) => s.id === box.id), laid = carried.shapes.find((s) => s.id === arrowId);
  assert.ok(movedBox.x > box.x, 'the box moved');
  near(endpoints(laid).to, { x: movedBox.x, y: movedBox.y }, 1, 'the head is at the moved box\'s centre');

  // A third shape; the arrow's head handle dragged onto its top edge: one endpoint gesture, guides on the way.
  const third = await snapped(page, 448, 544, 'roundedRect');
  await page.eval(`snapboard.actions.select('${arrowId}')`);
  await settled(page);
  const head = endpoints(await page.eval(`snapboard.client.replica.shapes.get('${arrowId}')`)).to;
  const start = await page.screenOf(head.x, head.y), target = await page.screenOf(third.x + 3, third.y - third.h / 2 - 2);
  sent = page.sent.length;
  await page.mouse('mouseMoved', start.x, start.y, { buttons: 0, button: 'none' });
  await page.mouse('mousePressed', start.x, start.y);
  for (let i = 1; i <= 8; i++) {
    await page.mouse('mouseMoved', start.x + ((target.x - start.x) * i) / 8, start.y + ((target.y - start.y) * i) / 8);
    await pause(25);
  }
  await page.waitFor('guides through the anchor shown', `snapboard.client.replica.guides.some((g) => g.target === '${third.id}')`, patient);
  await page.mouse('mouseReleased', target.x, target.y);
  await settled(page);
  const gesture = ops(page.sent.slice(sent));
  assert.ok(gesture.length >= 2 && gesture.every((m) => m.op === 'endpoint' && m.shape === arrowId && m.end === 'to'), `only the endpoint gesture: ${JSON.stringify(gesture)}`);
  assert.deepEqual(gesture.filter((m) => m.phase !== 'update').map((m) => m.phase), ['begin', 'end'], 'one gesture');
  const rebound = await until('the watcher sees the head bound to the third shape', () => watched(w).get(arrowId)?.to?.shape === third.id && watched(w).get(arrowId), patient);
  assert.deepEqual(rebound.to, { shape: third.id, anchor: 'top' });
  assert.equal(rebound.from?.shape, note.id, 'the other end stays on the note');
  await page.close();
});

test('[P28] a viewer has no Line or Arrow tool, and a drag sends nothing', async () => {
  const w = await watcher('connectors-viewer');
  const editor = await board('connectors-viewer', 'ann');
  const a = await snapped(editor, 256, 256), b = await snapped(editor, 640, 256);
  const page = await board('connectors-viewer', 'vic', { query: '&role=viewer' });
  assert.equal(await isShown(page, '#kinds [data-kind="arrow"]'), false, 'no Arrow tool');
  assert.equal(await isShown(page, '#kinds [data-kind="line"]'), false, 'no Line tool');
  // Even with the Arrow chosen (a viewer cannot choose it), nothing is drawn.
  await page.eval("snapboard.toolbar.kind = 'arrow'");
  const sent = page.sent.length;
  const from = await page.screenOf(a.x, a.y + 40), to = await page.screenOf(b.x, b.y);
  await dragThrough(page, [from, { x: from.x + 40, y: from.y }, { x: to.x - 40, y: to.y }, to]);
  await shared.commitsBeforeMarker(editor, w, w.messages.length, { timeout: patient });
  assert.deepEqual(ops(page.sent.slice(sent)), [], 'the viewer sent no op');
  assert.equal([...watched(w).values()].filter((s) => s.kind === 'arrow' || s.kind === 'line').length, 0);
  await page.close();
  await editor.close();
});

test('[P28] on a phone the Line and Arrow tools fold with the shape tools and the toolbar stays one row', async () => {
  const page = await board('connectors-phone', 'ann', { width: 390, height: 844, touch: true });
  const layout = async () => page.eval(`(() => {
    const t = document.getElementById('toolbar');
    const tops = [...t.querySelectorAll('button')].filter((b) => b.getClientRects().length).map((b) => Math.round(b.getBoundingClientRect().top));
    return { rows: new Set(tops).size, fits: t.scrollWidth <= t.clientWidth };
  })()`);
  assert.deepEqual(await layout(), { rows: 1, fits: true });
  assert.equal(await isShown(page, '#kinds [data-kind="arrow"]'), false, 'folded while another kind is chosen');
  const tap = async (selector) => {
    const r = await page.eval(`(() => { const b = document.querySelector('${selector}').getBoundingClientRect(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; })()`);
    await page.touch('touchStart', [{ x: r.x, y: r.y, id: 1 }]);
    await page.touch('touchEnd', []);
  };
  await tap('#kinds [aria-pressed="true"]');
  await page.waitFor('the shape tools open', "getComputedStyle(document.querySelector('#kinds [data-kind=\"arrow\"]')).display !== 'none'");
  await tap('#kinds [data-kind="arrow"]');
  assert.equal(await page.eval('snapboard.toolbar.kind'), 'arrow');
  assert.deepEqual(await layout(), { rows: 1, fits: true }, 'with the Arrow chosen, still one row');
  assert.deepEqual(await page.eval("[...document.querySelectorAll('#kinds button')].filter((b) => b.getClientRects().length).map((b) => b.dataset.kind)"), ['arrow']);
  // A finger's drag on the board draws an arrow: one connect.
  const sent = page.sent.length;
  const a = await page.screenOf(200, 300), b = await page.screenOf(500, 300);
  await page.touch('touchStart', [{ x: a.x, y: a.y, id: 1 }]);
  for (let i = 1; i <= 6; i++) { await page.touch('touchMove', [{ x: a.x + ((b.x - a.x) * i) / 6, y: a.y, id: 1 }]); await pause(20); }
  await page.touch('touchEnd', []);
  await settled(page);
  assert.deepEqual(ops(page.sent.slice(sent)).map((m) => m.op), ['connect']);
  await page.close();
});
