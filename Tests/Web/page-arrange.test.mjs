// The page's z-order and lock controls (P25) in Debian's real Chromium against a real snapboard-server:
// the Arrange buttons and their keys each commit one `order` or `lock` op, a locked shape shows a padlock
// and no handles, and a drag, a nudge or Delete on it sends nothing and says why; a phone gets them in one
// menu button, a viewer not at all. Each page's outgoing frames are recorded over CDP, and a second
// client watches the wire (support.mjs `watch`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bounds, Viewport } from '../../Sources/SnapboardWeb/lib/index.js';
import { keyHelp } from '../../Sources/SnapboardWeb/page/keyboard.js';
import { lockColor } from '../../Sources/SnapboardWeb/page/render.js';
import { handlesOf, lockMarkOf } from '../../Sources/SnapboardWeb/page/selection.js';
import { refusals } from '../../Sources/SnapboardWeb/page/status.js';
import { until } from './support.mjs';
import * as shared from './page-support.mjs';
import { dragThrough, ops } from './page-support.mjs';

// Chromium and a real server for the file's tests; board pages, watchers and patient waits (page-support.mjs).
const { board, watcher, settled, snapped, patient } = shared.pageSuite();

const frame = (page) => page.eval('snapboard.invalidate(); new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
/** Clicks a button once it is enabled: the Arrange buttons follow the selection in the next frame. */
async function clickOn(page, selector) {
  await page.waitFor(`${selector} enabled`, `!document.querySelector('${selector}').disabled`);
  await page.eval(`document.querySelector('${selector}').click()`);
}
const isShown = (page, selector) => page.eval(`(() => { const e = document.querySelector('${selector}'); return !!e && e.getClientRects().length > 0; })()`);
/**
 * Records every text the status line's hint shows in `window.hints` from now on: a hint goes after a few
 * seconds, and the test must not race it on a loaded machine.
 */
const recordHints = (page) => page.eval(`window.hints = []; const hint = document.getElementById('hint');
  new MutationObserver(() => hints.push(hint.textContent)).observe(hint, { childList: true, characterData: true, subtree: true });`);
/** The hints shown since the last call, and none kept. */
const hintsSince = (page) => page.eval('hints.splice(0).join(" | ")');

/** The watcher's canvas as its welcome and committed deltas leave it: the ids bottom to top (z, then id), and each shape. */
function watched(w) {
  const shapes = new Map();
  for (const m of w.messages) {
    if (m.type === 'welcome') for (const s of m.shapes ?? []) shapes.set(s.id, s);
    if (m.type === 'delta' && !m.live) {
      for (const s of m.shapes ?? []) shapes.set(s.id, { ...shapes.get(s.id), ...s });
      for (const id of m.removed ?? []) shapes.delete(id);
    }
  }
  const order = [...shapes.values()].sort((a, b) => a.z - b.z || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((s) => s.id);
  return { order, shapes };
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

/** The page's view as a Viewport in node, and where the board lies on the page. */
async function viewOf(page) {
  const v = await page.eval(`(() => { const r = document.getElementById('board').getBoundingClientRect();
    return { scale: snapboard.view.scale, ox: snapboard.view.ox, oy: snapboard.view.oy, left: r.left, top: r.top }; })()`);
  return { view: Object.assign(new Viewport(), { scale: v.scale, ox: v.ox, oy: v.oy }), left: v.left, top: v.top };
}

const near = (pixel, hex, tolerance = 40) => [1, 3, 5].every((i, k) => Math.abs(parseInt(hex.slice(i, i + 2), 16) - pixel[k]) < tolerance);

/** Whether the page shows shape `id`'s padlock, and its rotation knob's stem, in a fresh screenshot. */
async function marksOf(page, id) {
  await frame(page);
  const shape = await page.eval(`snapboard.client.drawingOrder().find((s) => s.id === '${id}')`);
  const { view, left, top } = await viewOf(page);
  const mark = lockMarkOf(shape, view), stem = handlesOf(shape, view).top;
  const shot = await page.screenshot();
  // The knob's ring, 24 px above the outline, is the only blue within 8 px of its centre.
  let blue = 0;
  for (let dx = -8; dx <= 8; dx++) for (let dy = -8; dy <= 8; dy++) if (near(shot.pixel(left + stem.x + dx, top + stem.y - 24 + dy), '#2f6fed', 60)) blue++;
  return { padlock: near(shot.pixel(left + mark.x, top + mark.y + 3.5), lockColor), handles: blue >= 6 };
}

test('the help lists the order and lock keys, and a locked shape\'s refusal is a sentence', () => {
  const does = keyHelp.map((k) => `${k.keys.join(' ')}: ${k.does}`).join('\n');
  for (const keys of ['Ctrl+Shift+]', 'Ctrl+]', 'Ctrl+[', 'Ctrl+Shift+[', 'Ctrl+Shift+L']) assert.ok(keyHelp.some((k) => k.keys.includes(keys)), `${keys} in ${does}`);
  assert.match(refusals.locked, /lock on it/);
});

test('each order button and key commits one order op with its `to`, and the watcher sees the new z\'s', async () => {
  const w = await watcher('arrange-order');
  const page = await board('arrange-order', 'ann');
  const a = await snapped(page, 300, 300), b = await snapped(page, 330, 310), c = await snapped(page, 360, 320);
  assert.deepEqual(watched(w).order, [a.id, b.id, c.id], 'made bottom to top');
  await page.eval(`snapboard.actions.select('${a.id}')`);
  const steps = [
    [() => clickOn(page, '#bring-to-front'), 'front', [b, c, a]],
    [() => page.key('[', { modifiers: ['ctrl'], code: 'BracketLeft' }), 'backward', [b, a, c]],
    [() => page.key('[', { modifiers: ['ctrl', 'shift'], code: 'BracketLeft' }), 'back', [a, b, c]],
    [() => page.key(']', { modifiers: ['ctrl'], code: 'BracketRight' }), 'forward', [b, a, c]],
    [() => clickOn(page, '#send-to-back'), 'back', [a, b, c]],
    [() => clickOn(page, '#bring-forward'), 'forward', [b, a, c]],
    [() => clickOn(page, '#send-backward'), 'backward', [a, b, c]],
    [() => page.key(']', { modifiers: ['ctrl', 'shift'], code: 'BracketRight' }), 'front', [b, c, a]],
  ];
  for (const [act, to, expected] of steps) {
    const { op, delta } = await oneOp(page, w, act);
    assert.deepEqual({ op: op.op, shapes: op.shapes, to: op.to }, { op: 'order', shapes: [a.id], to });
    assert.ok(delta.shapes.some((s) => s.id === a.id && typeof s.z === 'number'), `the delta carries ${a.id}'s new z`);
    assert.deepEqual(watched(w).order, expected.map((s) => s.id), `after ${to}`);
    assert.deepEqual((await shared.shapesOf(page)).map((s) => s.id), expected.map((s) => s.id), `the page draws ${to} too`);
  }
  // Two shapes at once: one op naming both.
  await page.eval(`snapboard.actions.select('${a.id}'); snapboard.actions.select('${b.id}', { toggle: true })`);
  const { op } = await oneOp(page, w, () => clickOn(page, '#send-to-back'));
  assert.deepEqual({ op: op.op, shapes: [...op.shapes].sort(), to: op.to }, { op: 'order', shapes: [a.id, b.id].sort(), to: 'back' });
  assert.equal(watched(w).order.at(-1), c.id, 'the other shape is on top');
  // Nothing selected: the buttons are disabled, a key only says so.
  await page.eval('snapboard.actions.deselect()');
  await page.waitFor('the order buttons disabled', "document.getElementById('bring-to-front').disabled && document.getElementById('lock-button').disabled");
  await sendsNothing(page, w, () => page.key(']', { modifiers: ['ctrl'], code: 'BracketRight' }));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a locked shape shows a padlock and no handles; a drag, a handle drag, a nudge or Delete sends nothing and says it is locked; unlocked it moves', async () => {
  const w = await watcher('arrange-lock');
  const page = await board('arrange-lock', 'ann');
  const s = await snapped(page, 400, 300);
  await page.eval(`snapboard.actions.select('${s.id}')`);
  assert.deepEqual(await marksOf(page, s.id), { padlock: false, handles: true }, 'unlocked: handles, no padlock');
  assert.equal(await page.eval("document.getElementById('lock-button').getAttribute('aria-label')"), 'Lock');

  const { op, delta } = await oneOp(page, w, () => clickOn(page, '#lock-button'));
  assert.deepEqual({ op: op.op, shapes: op.shapes, locked: op.locked }, { op: 'lock', shapes: [s.id], locked: true });
  assert.equal(delta.shapes.find((x) => x.id === s.id)?.locked, true, 'the watcher sees it locked');
  await page.waitFor('Unlock offered', "document.getElementById('lock-button').getAttribute('aria-label') === 'Unlock'");
  assert.deepEqual(await marksOf(page, s.id), { padlock: true, handles: false }, 'locked: a padlock, no handles');

  await recordHints(page);
  const at = await page.screenOf(s.x, s.y);
  await sendsNothing(page, w, () => dragThrough(page, [at, { x: at.x + 20, y: at.y }, { x: at.x + 60, y: at.y + 10 }, { x: at.x + 90, y: at.y + 20 }]));
  assert.match(await hintsSince(page), /has a lock on it/, 'the drag says why');
  // Where the handles would be, a drag grabs none: the knob and a corner only pan.
  for (const pick of [(h) => h.knob, (h) => h.corners[2]]) {
    const shape = await page.eval(`snapboard.client.drawingOrder().find((x) => x.id === '${s.id}')`);
    const { view, left, top } = await viewOf(page);
    const p = pick(handlesOf(shape, view)), from = { x: left + p.x, y: top + p.y };
    await sendsNothing(page, w, () => dragThrough(page, [from, { x: from.x + 15, y: from.y + 5 }, { x: from.x + 50, y: from.y + 30 }]));
  }
  for (const [what, act] of [['a nudge', () => page.key('ArrowRight')], ['Delete', () => page.key('Delete')], ['the Delete button', () => clickOn(page, '#delete-button')]]) {
    await page.eval(`snapboard.actions.select('${s.id}')`);
    await sendsNothing(page, w, act);
    assert.match(await hintsSince(page), /has a lock on it/, `${what} says why`);
  }
  const still = watched(w).shapes.get(s.id);
  assert.ok(still && still.locked === true, 'still there, still locked');

  // Still selectable and orderable while locked (the markers lie above it, so to the front it goes).
  const { op: ordered } = await oneOp(page, w, () => clickOn(page, '#bring-to-front'));
  assert.equal(ordered.op, 'order');

  const { op: unlock } = await oneOp(page, w, () => page.key('l', { modifiers: ['ctrl', 'shift'] }));
  assert.deepEqual({ op: unlock.op, shapes: unlock.shapes, locked: unlock.locked }, { op: 'lock', shapes: [s.id], locked: false });
  await page.waitFor('Lock offered', "document.getElementById('lock-button').getAttribute('aria-label') === 'Lock'");
  assert.deepEqual(await marksOf(page, s.id), { padlock: false, handles: true }, 'unlocked again');
  const from = await page.screenOf(s.x, s.y);
  await dragThrough(page, [from, { x: from.x + 20, y: from.y }, { x: from.x + 60, y: from.y }, { x: from.x + 100, y: from.y }]);
  await until('the move committed', () => (watched(w).shapes.get(s.id)?.x ?? s.x) > s.x + 20, patient);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('on a phone the Arrange tools fold into one menu button and the toolbar stays one row', async () => {
  const w = await watcher('arrange-phone');
  const page = await board('arrange-phone', 'ann', { width: 390, height: 844, touch: true });
  const s = await snapped(page, 400, 300);
  await page.eval(`snapboard.actions.select('${s.id}')`);
  await page.waitFor('the menu enabled', "!document.getElementById('arrange-menu').disabled");
  const layout = await page.eval(`(() => {
    const t = document.getElementById('toolbar');
    const tops = [...t.querySelectorAll('button')].filter((b) => b.getClientRects().length).map((b) => Math.round(b.getBoundingClientRect().top));
    return { rows: new Set(tops).size, fits: t.scrollWidth <= t.clientWidth, height: t.getBoundingClientRect().height };
  })()`);
  assert.deepEqual({ rows: layout.rows, fits: layout.fits }, { rows: 1, fits: true }, `one row, all in view: ${JSON.stringify(layout)}`);
  assert.ok(layout.height <= 48);
  assert.equal(await isShown(page, '#bring-to-front'), false, 'folded');
  const tap = async (selector) => {
    const r = await page.eval(`(() => { const b = document.querySelector('${selector}').getBoundingClientRect(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; })()`);
    await page.touch('touchStart', [{ x: r.x, y: r.y, id: 1 }]);
    await page.touch('touchEnd', []);
  };
  await tap('#arrange-menu');
  await page.waitFor('the menu open', "document.getElementById('arrange-menu').getAttribute('aria-expanded') === 'true'");
  const names = await page.eval("[...document.querySelectorAll('#arrange-items button')].filter((b) => b.getClientRects().length).map((b) => b.getAttribute('aria-label'))");
  assert.deepEqual(names, ['Bring to front', 'Bring forward', 'Send backward', 'Send to back', 'Lock', 'Group', 'Ungroup']);
  await page.waitFor('Lock enabled', "!document.getElementById('lock-button').disabled");
  const { op } = await oneOp(page, w, () => tap('#lock-button'));
  assert.deepEqual({ op: op.op, locked: op.locked }, { op: 'lock', locked: true });
  await page.waitFor('the menu folded', "document.getElementById('arrange-menu').getAttribute('aria-expanded') === 'false'");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a viewer sees no Arrange tools, and their keys send nothing', async () => {
  const w = await watcher('arrange-viewer');
  const editor = await board('arrange-viewer', 'ann');
  const s = await snapped(editor, 400, 300);
  const page = await board('arrange-viewer', 'vic', { query: '&role=viewer' });
  await page.waitFor('the shape', `snapboard.client.replica.shapes.has('${s.id}')`);
  await page.eval(`snapboard.actions.select('${s.id}')`);
  for (const id of ['#arrange-menu', '#bring-to-front', '#lock-button']) assert.equal(await isShown(page, id), false, `${id} hidden`);
  const sent = page.sent.length;
  await page.key(']', { modifiers: ['ctrl', 'shift'], code: 'BracketRight' });
  await page.key('l', { modifiers: ['ctrl', 'shift'] });
  // The editor's marker proves the viewer's keys, had they sent anything, would have come first.
  await shared.commitsBeforeMarker(editor, w, w.messages.length, { timeout: patient });
  assert.deepEqual(ops(page.sent.slice(sent)), [], 'the viewer sent no op');
  assert.equal(await page.eval('snapboard.client.pending.ops.length'), 0, 'and holds none to send');
  assert.deepEqual(page.errors, []);
  await page.close();
  await editor.close();
});
