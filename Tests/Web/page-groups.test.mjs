// The page's groups and copies (protocol 1.7, P27) in Debian's real Chromium against a real
// snapboard-server: Ctrl+D sends one `duplicate` op whose copies become the selection; Ctrl+G, Ctrl+Shift+G
// and the Arrange group's Group and Ungroup buttons send one `group` or `ungroup` op each; a click on a
// member selects its whole group and Shift+click takes the whole group out; a phone gets Group and
// Ungroup in the folded Arrange menu with the toolbar in one row, a viewer not at all. Each page's
// outgoing frames are recorded over CDP, and a second client watches the wire (support.mjs `watch`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describe } from '../../Sources/SnapboardWeb/page/history.js';
import { keyHelp } from '../../Sources/SnapboardWeb/page/keyboard.js';
import { outlineBoxes } from '../../Sources/SnapboardWeb/page/selection.js';
import { opRefusals, refusals, refusalText } from '../../Sources/SnapboardWeb/page/status.js';
import { get, until } from './support.mjs';
import * as shared from './page-support.mjs';
import { ops } from './page-support.mjs';

let server;
// Chromium and a real server for the file's tests; board pages, watchers and patient waits (page-support.mjs).
const { board, watcher, settled, snapped, patient } = shared.pageSuite((_, s) => { server = s; });

/** Clicks a button once it is enabled: the Arrange buttons follow the selection in the next frame. */
async function clickOn(page, selector) {
  await page.waitFor(`${selector} enabled`, `!document.querySelector('${selector}').disabled`);
  await page.eval(`document.querySelector('${selector}').click()`);
}
const isShown = (page, selector) => page.eval(`(() => { const e = document.querySelector('${selector}'); return !!e && e.getClientRects().length > 0; })()`);
const selection = (page) => page.eval('[...snapboard.ui.selection].sort()');
const disabled = (page, selector) => page.eval(`document.querySelector('${selector}').disabled`);
/** Waits a frame: the Arrange buttons follow the selection and the replica on each drawn frame. */
const frame = (page) => page.eval('snapboard.invalidate(); new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');

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

/**
 * Runs `act` and waits until the one op it sent commits and the page has its answer; returns that op
 * and the committed delta the watcher got for it.
 */
async function oneOp(page, w, act) {
  const sent = page.sent.length;
  await act();
  const [op, ...more] = await until('the op sent', () => ops(page.sent.slice(sent)).length > 0 && ops(page.sent.slice(sent)), patient);
  const delta = await until('the op committed', () => w.committed().find((d) => d.ops?.includes(op.id)), patient);
  await settled(page);
  assert.deepEqual([...more, ...ops(page.sent.slice(sent)).slice(1)], [], 'one op, no more');
  return { op, delta };
}

/** Proves that `act` sent no op: a marker snapped afterwards is the only op the page sent since (ops from one socket are ordered). */
async function sendsNothing(page, w, act) {
  const sent = page.sent.length;
  await act();
  await shared.commitsBeforeMarker(page, w, w.messages.length, { timeout: patient });
  assert.deepEqual(ops(page.sent.slice(sent)).filter((m) => m.op !== 'snap'), [], 'nothing but the marker sent');
}

/** A mouse click at canvas point (x, y), with Shift when `shift`. */
async function clickShape(page, shape, { shift = false } = {}) {
  const at = await page.screenOf(shape.x, shape.y);
  const modifiers = shift ? 8 : 0;
  await page.mouse('mouseMoved', at.x, at.y, { buttons: 0, button: 'none', modifiers });
  await page.mouse('mousePressed', at.x, at.y, { modifiers });
  await page.mouse('mouseReleased', at.x, at.y, { modifiers });
}

test('[P27] the help lists Ctrl+G and Ctrl+Shift+G; refusals of copies and groups read as sentences; history says grouped, ungrouped and duplicated', () => {
  const does = keyHelp.map((k) => `${k.keys.join(' ')}: ${k.does}`).join('\n');
  for (const keys of ['Ctrl+G', '⌘+G', 'Ctrl+Shift+G', '⌘+Shift+G', 'Ctrl+D']) assert.ok(keyHelp.some((k) => k.keys.includes(keys)), `${keys} in ${does}`);
  for (const code of ['bad_shape_id', 'canvas_full', 'layout_full', 'out_of_range']) {
    assert.match(refusalText(code, 'raw', 'duplicate'), /cop(y|ies)/, `a refused duplicate's ${code} speaks of copies`);
    assert.notEqual(refusalText(code, 'raw', 'duplicate'), refusals[code]);
  }
  assert.match(refusalText('out_of_range', 'raw', 'group'), /two to 1,000/);
  assert.equal(refusalText('canvas_full', 'raw', 'group'), refusals.canvas_full, 'a code with no sentence of its own for the op: the general one');
  assert.equal(refusalText('layout_full', 'raw'), refusals.layout_full);
  assert.ok(Object.values(opRefusals).every((table) => Object.keys(table).every((code) => code in refusals)), 'only codes the server sends');

  const look = (group) => (group ? { fill: { h: 0, s: 0, b: 1, a: 1 }, group } : { fill: { h: 0, s: 0, b: 1, a: 1 } });
  const edit = (from, to) => ({ op: { type: 'edit', changes: ['a', 'b'].map((id) => ({ id, look: look(to), before: look(from) })) } });
  assert.equal(describe(edit(undefined, 'g3')), 'grouped 2 shapes');
  assert.equal(describe(edit('g3', 'g7')), 'grouped 2 shapes', 'regrouped into a bigger group');
  assert.equal(describe(edit('g3', undefined)), 'ungrouped 2 shapes');
  assert.equal(describe({ op: { type: 'restore', shapes: [{ kind: 'oval' }, { kind: 'star' }] } }), 'duplicated 2 shapes');
  assert.equal(describe({ op: { type: 'restore', shapes: [{ kind: 'oval' }] } }), 'duplicated an oval');
  assert.equal(describe({ undoes: 4, op: { type: 'restore', shapes: [{ kind: 'oval' }] } }), 'undid a change (brought back one shape)');

  const box = (id, x, group) => ({ id, kind: 'dot', x, y: 100, w: 20, h: 20, scale: 1, rotation: 0, ...(group ? { group } : {}) });
  const boxes = outlineBoxes([box('a', 100, 'g1'), box('b', 200, 'g1'), box('c', 300), box('d', 400, 'g2')]);
  assert.deepEqual(boxes.map((b) => [b.minX, b.maxX]), [[290, 310], [90, 210], [390, 410]], 'one box around each group, one around each shape in none');
});

test('[P27] Ctrl+D on two selected shapes sends one duplicate op naming the copies; the watcher sees them committed; the copies become the selection', async () => {
  const w = await watcher('groups-duplicate');
  const page = await board('groups-duplicate', 'ann');
  const a = await snapped(page, 320, 320, 'oval'), b = await snapped(page, 480, 320, 'star');
  await page.eval(`snapboard.actions.select('${a.id}'); snapboard.actions.select('${b.id}', { toggle: true })`);
  const { op, delta } = await oneOp(page, w, () => page.key('d', { modifiers: ['ctrl'] }));
  assert.equal(op.op, 'duplicate');
  assert.deepEqual(op.shapes, [a.id, b.id], 'the selection, bottom to top');
  assert.equal(op.ids.length, 2, 'the page names both copies');
  assert.ok(op.ids.every((id) => /^[A-Za-z0-9_-]{1,64}$/.test(id) && id !== a.id && id !== b.id));
  assert.deepEqual(delta.shapes.map((s) => s.id), op.ids, 'one committed delta with both copies');
  const shapes = watched(w);
  for (const [i, original] of [a, b].entries()) {
    const copy = shapes.get(op.ids[i]);
    assert.ok(copy, `the watcher has the copy of ${original.kind}`);
    assert.deepEqual([copy.kind, copy.w, copy.h, copy.fill, copy.hatch], [original.kind, original.w, original.h, original.fill, original.hatch]);
    assert.ok(copy.x > original.x && copy.y > original.y, 'one grid step right and down');
  }
  await page.waitFor('the copies drawn', `${JSON.stringify(op.ids)}.every((id) => snapboard.client.replica.shapes.has(id))`);
  assert.deepEqual(await selection(page), [...op.ids].sort(), 'the copies are the selection');
  assert.deepEqual((await page.eval('snapboard.actions.selected.map((s) => s.id)')), op.ids, 'and exist');
  // Again: a stair of copies of the copies, one op.
  const { op: again } = await oneOp(page, w, () => page.key('d', { modifiers: ['meta'] }));
  assert.deepEqual([again.op, again.shapes], ['duplicate', op.ids]);
  await page.waitFor('the second copies selected', `(() => { const s = snapboard.actions.selected.map((x) => x.id); return s.length === 2 && ${JSON.stringify(again.ids)}.every((id) => s.includes(id)); })()`);
  const { body } = await get(server, '/v1/canvases/groups-duplicate/history');
  assert.equal(describe(body.ops.at(-1)), 'duplicated 2 shapes', 'the history says what it was');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('[P27] Ctrl+G groups two selected shapes in one op; a click on one member selects both, Shift+click takes both out; Ctrl+Shift+G ungroups in one op', async () => {
  const w = await watcher('groups-keys');
  const page = await board('groups-keys', 'ann');
  const a = await snapped(page, 320, 320), b = await snapped(page, 480, 320, 'oval'), c = await snapped(page, 640, 480, 'triangle');
  await page.eval(`snapboard.actions.select('${a.id}'); snapboard.actions.select('${b.id}', { toggle: true })`);
  const { op, delta } = await oneOp(page, w, () => page.key('g', { modifiers: ['ctrl'] }));
  assert.deepEqual([op.op, op.shapes], ['group', [a.id, b.id]]);
  const group = delta.shapes.find((s) => s.id === a.id)?.group;
  assert.ok(group, 'the watcher sees a group');
  assert.deepEqual(delta.shapes.map((s) => [s.id, s.group]).sort(), [[a.id, group], [b.id, group]].sort(), 'both shapes, in one group');
  await page.waitFor('the page has the group', `snapboard.client.replica.shapes.get('${b.id}')?.group === '${group}'`);
  const { body } = await get(server, '/v1/canvases/groups-keys/history');
  assert.equal(describe(body.ops.at(-1)), 'grouped 2 shapes');

  // A plain click on one member selects the whole group; on a shape in none, that shape alone.
  await page.key('Escape');
  await clickShape(page, b);
  assert.deepEqual(await selection(page), [a.id, b.id].sort(), 'a click on one member selects both');
  await clickShape(page, c);
  assert.deepEqual(await selection(page), [c.id]);
  await clickShape(page, a, { shift: true });
  assert.deepEqual(await selection(page), [a.id, b.id, c.id].sort(), 'Shift+click adds the whole group');
  await clickShape(page, b, { shift: true });
  assert.deepEqual(await selection(page), [c.id], 'Shift+click on a member takes the whole group out');
  // Marquee and Ctrl+A are as before.
  await page.key('a', { modifiers: ['ctrl'] });
  assert.deepEqual(await selection(page), [a.id, b.id, c.id].sort());

  // Ctrl+G with one shape (in no group) sends nothing and says why.
  await page.eval(`snapboard.actions.select('${c.id}')`);
  await sendsNothing(page, w, () => page.key('g', { modifiers: ['ctrl'] }));
  // Ctrl+Shift+G on a member ungroups the whole group in one op.
  await clickShape(page, a);
  const { op: ungroup, delta: parted } = await oneOp(page, w, () => page.key('g', { modifiers: ['ctrl', 'shift'] }));
  assert.equal(ungroup.op, 'ungroup');
  assert.deepEqual([...ungroup.shapes].sort(), [a.id, b.id].sort());
  assert.deepEqual(parted.shapes.map((s) => [s.id, 'group' in s]).sort(), [[a.id, false], [b.id, false]].sort(), 'the watcher sees both leave the group');
  await page.waitFor('the page has no group', `snapboard.client.replica.shapes.get('${a.id}')?.group === undefined`);
  await page.key('Escape');
  await clickShape(page, a);
  assert.deepEqual(await selection(page), [a.id], 'ungrouped, a click selects one shape');
  const history = await get(server, '/v1/canvases/groups-keys/history');
  assert.equal(describe(history.body.ops.at(-1)), 'ungrouped 2 shapes');
  // Ctrl+Shift+G on a shape in no group sends nothing.
  await sendsNothing(page, w, () => page.key('g', { modifiers: ['ctrl', 'shift'] }));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('[P27] the Arrange group\'s Group and Ungroup buttons each send one op, and are disabled where they would do nothing', async () => {
  const w = await watcher('groups-buttons');
  const page = await board('groups-buttons', 'ann');
  const a = await snapped(page, 320, 320), b = await snapped(page, 480, 320, 'oval');
  await frame(page);
  assert.deepEqual([await disabled(page, '#group-button'), await disabled(page, '#ungroup-button')], [true, true], 'nothing selected');
  await page.eval(`snapboard.actions.select('${a.id}')`);
  await frame(page);
  assert.deepEqual([await disabled(page, '#group-button'), await disabled(page, '#ungroup-button')], [true, true], 'one shape in no group');
  assert.equal(await page.eval("document.getElementById('group-button').title"), 'Group (Ctrl+G)');
  await page.eval(`snapboard.actions.select('${b.id}', { toggle: true })`);
  const { op, delta } = await oneOp(page, w, () => clickOn(page, '#group-button'));
  assert.deepEqual([op.op, op.shapes], ['group', [a.id, b.id]]);
  assert.ok(delta.shapes.every((s) => s.group && s.group === delta.shapes[0].group) && delta.shapes.length === 2);
  await page.waitFor('Group disabled, Ungroup enabled: the selection is one group',
    "snapboard.invalidate() || (document.getElementById('group-button').disabled && !document.getElementById('ungroup-button').disabled)");
  const { op: ungroup } = await oneOp(page, w, () => clickOn(page, '#ungroup-button'));
  assert.equal(ungroup.op, 'ungroup');
  await until('the watcher sees them part', () => [a.id, b.id].every((id) => watched(w).get(id)?.group === undefined), patient);
  await page.waitFor('Group enabled again', "snapboard.invalidate() || (!document.getElementById('group-button').disabled && document.getElementById('ungroup-button').disabled)");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('[P27] on a phone Group and Ungroup are in the folded Arrange menu and the toolbar stays one row', async () => {
  const w = await watcher('groups-phone');
  const page = await board('groups-phone', 'ann', { width: 390, height: 844, touch: true });
  const a = await snapped(page, 320, 320), b = await snapped(page, 480, 320, 'oval');
  await page.eval(`snapboard.actions.select('${a.id}'); snapboard.actions.select('${b.id}', { toggle: true })`);
  await page.waitFor('the menu enabled', "!document.getElementById('arrange-menu').disabled");
  const layout = await page.eval(`(() => {
    const t = document.getElementById('toolbar');
    const tops = [...t.querySelectorAll('button')].filter((b) => b.getClientRects().length).map((b) => Math.round(b.getBoundingClientRect().top));
    return { rows: new Set(tops).size, fits: t.scrollWidth <= t.clientWidth, height: t.getBoundingClientRect().height };
  })()`);
  assert.deepEqual({ rows: layout.rows, fits: layout.fits }, { rows: 1, fits: true }, `one row, all in view: ${JSON.stringify(layout)}`);
  assert.ok(layout.height <= 48);
  assert.equal(await isShown(page, '#group-button'), false, 'folded');
  const tap = async (selector) => {
    const r = await page.eval(`(() => { const b = document.querySelector('${selector}').getBoundingClientRect(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; })()`);
    await page.touch('touchStart', [{ x: r.x, y: r.y, id: 1 }]);
    await page.touch('touchEnd', []);
  };
  await tap('#arrange-menu');
  await page.waitFor('the menu open', "document.getElementById('arrange-menu').getAttribute('aria-expanded') === 'true'");
  const names = await page.eval("[...document.querySelectorAll('#arrange-items button')].filter((b) => b.getClientRects().length).map((b) => b.getAttribute('aria-label'))");
  assert.deepEqual(names.slice(-2), ['Group', 'Ungroup']);
  await page.waitFor('Group enabled', "!document.getElementById('group-button').disabled");
  const { op } = await oneOp(page, w, () => tap('#group-button'));
  assert.equal(op.op, 'group');
  await page.waitFor('the menu folded', "document.getElementById('arrange-menu').getAttribute('aria-expanded') === 'false'");
  // A tap on a member selects the whole group.
  await page.eval('snapboard.actions.deselect()');
  await page.waitFor('the group', `snapboard.client.replica.shapes.get('${a.id}')?.group !== undefined`);
  const at = await page.screenOf(b.x, b.y);
  await page.touch('touchStart', [{ x: at.x, y: at.y, id: 1 }]);
  await page.touch('touchEnd', []);
  await page.waitFor('both selected', 'snapboard.ui.selection.size === 2');
  assert.deepEqual(await selection(page), [a.id, b.id].sort());
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('[P27] a viewer sees no Group controls, and Ctrl+G, Ctrl+Shift+G and Ctrl+D send nothing; a click on a member still selects the group', async () => {
  const w = await watcher('groups-viewer');
  const editor = await board('groups-viewer', 'ann');
  const a = await snapped(editor, 320, 320), b = await snapped(editor, 480, 320, 'oval');
  await editor.eval(`snapboard.client.group(['${a.id}', '${b.id}'])`);
  await settled(editor);
  const page = await board('groups-viewer', 'vic', { query: '&role=viewer' });
  await page.waitFor('the group', `snapboard.client.replica.shapes.get('${b.id}')?.group !== undefined`);
  for (const id of ['#arrange-menu', '#group-button', '#ungroup-button']) assert.equal(await isShown(page, id), false, `${id} hidden`);
  await clickShape(page, a);
  assert.deepEqual(await selection(page), [a.id, b.id].sort(), 'a viewer selects the group too');
  const sent = page.sent.length;
  await page.key('g', { modifiers: ['ctrl'] });
  await page.key('g', { modifiers: ['ctrl', 'shift'] });
  await page.key('d', { modifiers: ['ctrl'] });
  // The editor's marker proves the viewer's keys, had they sent anything, would have come first.
  await shared.commitsBeforeMarker(editor, w, w.messages.length, { timeout: patient });
  assert.deepEqual(ops(page.sent.slice(sent)), [], 'the viewer sent no op');
  assert.equal(await page.eval('snapboard.client.pending.ops.length'), 0, 'and holds none to send');
  assert.deepEqual(page.errors, []);
  await page.close();
  await editor.close();
});
