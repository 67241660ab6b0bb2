// The board's interaction in Debian's real Chromium against a real snapboard-server: what a click, a tap,
// a drag, a pinch, a key or the wheel does, and above all what it does not send. Every page's outgoing
// WebSocket frames are recorded over CDP (Network.webSocketFrameSent), and a second client watches the
// wire (support.mjs `watch`), so each test proves what was and was not sent and committed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { launchBrowser } from './browser.mjs';
import { send, serverBinary, startServer, until, watch } from './support.mjs';
import { commitsBeforeMarker, committedSince, dragThrough, ops, recordSent, settled, shapesOf, snapped } from './page-support.mjs';
import { Viewport, wheelZoom, zoomStep } from '../../Sources/SnapboardWeb/lib/viewport.js';
import { gridPitch } from '../../Sources/SnapboardWeb/page/actions.js';
import { cornerFactor, handleUnder, shapeAt, shapesInside } from '../../Sources/SnapboardWeb/page/selection.js';
import { doubleTap, endParams } from '../../Sources/SnapboardWeb/page/slop.js';

let browser, server;
const servers = [];
before(async () => {
  browser = await launchBrowser();
  server = await startServer();
  servers.push(server);
});
after(async () => {
  await browser?.close();
  for (const s of servers) await s.stop();
});

/**
 * A board page on `canvas` whose outgoing frames are recorded: `page.sent` holds every message it wrote to
 * its socket, parsed, in order.
 */
async function board(s, canvas, name, { query = '', ...options } = {}) {
  const page = await browser.newPage(options);
  await recordSent(browser, page);
  await page.goto(`${s.http}/c/${canvas}?name=${name}${query}`);
  // Generous: the machine's two cores are shared with compilers and other suites.
  await page.waitFor(`${name} connected`, "window.snapboard?.client.state === 'connected'", 45000);
  return page;
}

const selection = (page) => page.eval('[...snapboard.ui.selection].sort()');

/**
 * Proves that `act` sent no op and committed nothing: afterwards the page snaps a marker shape at
 * (x, y), and once the watcher sees that commit, the marker's op must be the only op the page sent since
 * `act` began, and its delta the only delta (live or committed) the watcher got since then. Ops from one
 * socket are ordered, so anything `act` had sent would have come first. Returns the marker shape.
 */
async function sendsNothing(page, watcher, act, { x = 1000, y = 740 } = {}) {
  const sent = page.sent.length, seen = watcher.messages.length;
  await act();
  const marker = await page.eval(`snapboard.client.snap(${x}, ${y}, { kind: 'dot' })`);
  await until('the marker committed', () => watcher.messages.slice(seen).some((m) => m.type === 'delta' && m.ops?.includes(marker)));
  assert.deepEqual(ops(page.sent.slice(sent)).map((m) => m.id), [marker], `only the marker was sent: ${JSON.stringify(ops(page.sent.slice(sent)))}`);
  const deltas = watcher.messages.slice(seen).filter((m) => m.type === 'delta');
  assert.deepEqual(deltas.map((d) => d.ops), [[marker]], 'only the marker was committed');
  await settled(page);
  return deltas[0].shapes[0];
}

/** A mouse click with modifiers (CDP: 1 Alt, 2 Ctrl, 4 Meta, 8 Shift) and a click count. */
async function click(page, x, y, { modifiers = 0, clickCount = 1 } = {}) {
  await page.mouse('mouseMoved', x, y, { buttons: 0, button: 'none', modifiers });
  await page.mouse('mousePressed', x, y, { modifiers, clickCount });
  await page.mouse('mouseReleased', x, y, { modifiers, clickCount });
}

/** True when a pixel within one pixel of (x, y) is the selection's blue (#2f6fed), as a handle's edge is drawn. */
function selectionBlueNear(shot, x, y) {
  for (let dx = -1; dx <= 1; dx++) {
    for (let dy = -1; dy <= 1; dy++) {
      const [r, g, b] = shot.pixel(x + dx, y + dy);
      if (Math.abs(r - 0x2f) < 40 && Math.abs(g - 0x6f) < 40 && Math.abs(b - 0xed) < 40) return true;
    }
  }
  return false;
}

/** Creates a canvas over HTTP with these settings (PROTOCOL.md P19). */
async function canvas(s, body) {
  const created = await send(s, 'POST', '/v1/canvases', body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

test('the zoom step: one wheel notch zooms 1.25×, a trackpad pinch in proportion, and no event more than one step', () => {
  assert.equal(zoomStep, 1.25);
  assert.equal(wheelZoom(-100), 1.25);
  assert.equal(wheelZoom(100), 0.8);
  assert.equal(wheelZoom(-1000), 1.25, 'a large delta in one event is still one step');
  assert.ok(Math.abs(wheelZoom(-10) - 1.25 ** 0.1) < 1e-12, 'a trackpad pinch zooms in proportion');
  assert.equal(wheelZoom(-3, 1), 1.25, 'three lines (a notch where wheels count lines) is one step');
  assert.equal(wheelZoom(0), 1);
});

test('the selection geometry: a grid step per axis, the corner factor, the handle a press grabs, the marquee', () => {
  assert.equal(gridPitch(1024, { pitch: 32 }), 32);
  assert.equal(gridPitch(768, { divisions: 8 }), 96);
  assert.equal(gridPitch(100, null), 100, 'no grid: the whole side');
  assert.equal(cornerFactor({ x: 0, y: 0 }, { x: 10, y: 10 }, { x: 15, y: 15 }), 1.5);
  assert.equal(cornerFactor({ x: 0, y: 0 }, { x: 10, y: 10 }, { x: 20, y: 10 }), 1.5, 'the pointer projected on the diagonal');
  assert.equal(cornerFactor({ x: 0, y: 0 }, { x: 10, y: 10 }, { x: -5, y: -5 }), 0.05, 'never through the anchor');
  const shape = (id, x, y, w) => ({ id, kind: 'roundedRect', x, y, w, h: w, scale: 1, rotation: 0, z: 0 });
  const big = shape('big', 100, 100, 120), small = shape('small', 300, 100, 12);
  const view = new Viewport(1, 0, 0);
  // The big shape's bottom-right handle is at (164, 164): a press 10 px off grabs it from outside the
  // shape with a finger, not with a mouse; inside the shape only the drawn square does.
  assert.equal(handleUnder(big, view, { x: 170, y: 172 }, true)?.kind, 'scale');
  assert.equal(handleUnder(big, view, { x: 170, y: 172 }, false), null);
  assert.deepEqual(handleUnder(big, view, { x: 166, y: 166 }, false)?.anchor, { x: 40, y: 40 }, 'the opposite corner stays');
  assert.equal(handleUnder(small, view, { x: 300, y: 100 }, true), null, "a finger on a small shape's middle grabs no corner");
  assert.equal(handleUnder(big, view, { x: 100, y: 100 - 64 - 24 }, false)?.kind, 'rotate');
  assert.equal(shapeAt([big, { ...big, id: 'top' }], { x: 100, y: 100 })?.id, 'top');
  assert.equal(shapeAt([big], { x: 400, y: 400 }), null);
  assert.deepEqual(shapesInside([big, small], { x: 30, y: 30 }, { x: 320, y: 170 }), ['big', 'small']);
  assert.deepEqual(shapesInside([big, small], { x: 50, y: 30 }, { x: 320, y: 170 }), ['small'], 'only shapes wholly inside');
});

test('the slop: a gesture back within it, or cancelled, ends with parameters that change nothing; a double-tap is soon and near', () => {
  const press = { start: { x: 100, y: 100 }, slop: 4 };
  assert.deepEqual(endParams('move', press, { x: 103, y: 102 }), { dx: 0, dy: 0 });
  assert.deepEqual(endParams('move', press, { x: 105, y: 100 }), {}, 'past the slop: the gesture as it went');
  assert.deepEqual(endParams('move', press, { x: 160, y: 100 }, true), { dx: 0, dy: 0 }, 'cancelled');
  assert.deepEqual(endParams('scale', press, { x: 100, y: 101 }), { factor: 1, radians: 0 });
  assert.deepEqual(endParams('rotate', press, { x: 99, y: 99 }), { radians: 0 });
  const span = (distance, x, y) => ({ distance, mid: { x, y } });
  const pinch = { span: span(40, 200, 200), slop: 10 };
  assert.deepEqual(endParams('pinch', { ...pinch, now: span(46, 203, 200), turned: 0.1 }), { factor: 1, radians: 0 });
  assert.deepEqual(endParams('pinch', { ...pinch, now: span(60, 200, 200), turned: 0 }), {}, 'spread past the slop');
  assert.deepEqual(endParams('pinch', { ...pinch, now: span(40, 200, 200), turned: 0.6 }), {}, 'turned past the slop');
  assert.equal(doubleTap(null, { x: 0, y: 0 }, 100), false);
  assert.equal(doubleTap({ at: { x: 0, y: 0 }, time: 0 }, { x: 5, y: 5 }, 400), true);
  assert.equal(doubleTap({ at: { x: 0, y: 0 }, time: 0 }, { x: 5, y: 5 }, 600), false, 'too late');
  assert.equal(doubleTap({ at: { x: 0, y: 0 }, time: 0 }, { x: 20, y: 0 }, 100), false, 'too far');
});

test('a click on a shape only selects it, and a press that wobbles within the slop sends nothing', async () => {
  const page = await board(server, 'input-click', 'cat');
  const watcher = await watch(server, 'input-click');
  const shape = await snapped(page, 320, 320);
  const at = await page.screenOf(shape.x, shape.y);
  await sendsNothing(page, watcher, async () => {
    await page.click(at.x, at.y);
    assert.deepEqual(await selection(page), [shape.id]);
    // Past the double-click interval, so that the next press is a click of its own and not a double-click,
    // which would open the shape's text editor (P26).
    await new Promise((r) => setTimeout(r, 600));
    // Pressed, moved 3 px (less than the mouse's slop) and back, released: still a click.
    await page.mouse('mousePressed', at.x, at.y);
    await page.mouse('mouseMoved', at.x + 3, at.y);
    await page.mouse('mouseMoved', at.x, at.y);
    await page.mouse('mouseReleased', at.x, at.y);
    assert.deepEqual(await selection(page), [shape.id]);
    // A tap on empty space while something is selected only deselects.
    const empty = await page.screenOf(700, 500);
    await page.click(empty.x, empty.y);
    assert.deepEqual(await selection(page), []);
  });
  const [after] = (await shapesOf(page)).filter((s) => s.id === shape.id);
  assert.deepEqual(after, shape, 'not brought to the front, not moved');
  assert.deepEqual(page.errors, []);
  watcher.close();
  await page.close();
});

test('Shift+click adds a shape to the selection and takes it out, Shift+drag selects with a marquee, and neither commits anything (no rotation)', async () => {
  const page = await board(server, 'input-shift', 'sam');
  const watcher = await watch(server, 'input-shift');
  const a = await snapped(page, 256, 320), b = await snapped(page, 576, 320);
  const pa = await page.screenOf(a.x, a.y), pb = await page.screenOf(b.x, b.y);
  await sendsNothing(page, watcher, async () => {
    await click(page, pa.x, pa.y);
    await click(page, pb.x, pb.y, { modifiers: 8 });
    assert.deepEqual(await selection(page), [a.id, b.id].sort());
    await click(page, pa.x, pa.y, { modifiers: 8 });
    assert.deepEqual(await selection(page), [b.id]);
    // Shift+drag on empty space: a marquee around both adds them.
    const from = await page.screenOf(a.x - a.w, a.y - a.h), to = await page.screenOf(b.x + b.w, b.y + b.h);
    await page.mouse('mouseMoved', from.x, from.y, { buttons: 0, button: 'none', modifiers: 8 });
    await page.mouse('mousePressed', from.x, from.y, { modifiers: 8 });
    for (let i = 1; i <= 6; i++) await page.mouse('mouseMoved', from.x + ((to.x - from.x) * i) / 6, from.y + ((to.y - from.y) * i) / 6, { modifiers: 8 });
    await page.mouse('mouseReleased', to.x, to.y, { modifiers: 8 });
    assert.deepEqual(await selection(page), [a.id, b.id].sort());
  });
  const now = await shapesOf(page);
  assert.deepEqual(now.filter((s) => s.id === a.id || s.id === b.id).map((s) => s.rotation), [0, 0]);
  watcher.close();
  await page.close();
});

test('a double-click on empty space makes one shape, not two', async () => {
  const page = await board(server, 'input-double', 'dot');
  const watcher = await watch(server, 'input-double');
  const seen = watcher.messages.length;
  const at = await page.screenOf(400, 300);
  await click(page, at.x, at.y, { clickCount: 1 });
  await click(page, at.x, at.y, { clickCount: 2 });
  await settled(page);
  // The marker proves no second snap is on its way.
  await sendsNothing(page, watcher, async () => {});
  const snaps = ops(page.sent).filter((m) => m.op === 'snap');
  assert.equal(snaps.length, 2, 'the double-click and the marker');
  assert.equal(committedSince(watcher, seen).length, 2);
  watcher.close();
  await page.close();
});

test('a finger that wobbles less than the touch slop (but more than a mouse may) only selects the shape it taps (phone)', async () => {
  const phone = await board(server, 'input-tap', 'tad', { width: 390, height: 844, touch: true });
  const watcher = await watch(server, 'input-tap');
  const shape = await snapped(phone, 512, 384);
  const c = await phone.screenOf(shape.x, shape.y);
  await sendsNothing(phone, watcher, async () => {
    await phone.touch('touchStart', [{ x: c.x, y: c.y, id: 1 }]);
    await phone.touch('touchMove', [{ x: c.x + 7, y: c.y + 3, id: 1 }]);
    await phone.touch('touchEnd', []);
    assert.deepEqual(await selection(phone), [shape.id]);
  });
  assert.deepEqual((await shapesOf(phone)).find((s) => s.id === shape.id), shape);
  watcher.close();
  await phone.close();
});

test('a two-finger pinch on a shape before any drag is one scale op and one undo step (phone)', async () => {
  const phone = await board(server, 'input-pinch', 'pia', { width: 390, height: 844, touch: true });
  const watcher = await watch(server, 'input-pinch');
  const shape = await snapped(phone, 512, 384);
  const c = await phone.screenOf(shape.x, shape.y);
  const seen = watcher.messages.length, sent = phone.sent.length;
  const fingers = (r) => [{ x: c.x - r, y: c.y, id: 1 }, { x: c.x + r, y: c.y, id: 2 }];
  await phone.touch('touchStart', [fingers(8)[0]]);
  await phone.touch('touchStart', fingers(8));
  for (let i = 1; i <= 8; i++) {
    await phone.touch('touchMove', fingers(8 + 2 * i));
    await new Promise((r) => setTimeout(r, 20));
  }
  await phone.touch('touchEnd', []);
  await settled(phone);
  const gestureOps = ops(phone.sent.slice(sent));
  assert.deepEqual([...new Set(gestureOps.map((m) => m.op))], ['scale'], `only scale ops: ${JSON.stringify(gestureOps)}`);
  assert.equal(gestureOps.filter((m) => m.phase === 'begin').length, 1);
  assert.equal(gestureOps.filter((m) => m.phase === 'end').length, 1);
  const commits = committedSince(watcher, seen);
  assert.equal(commits.length, 1, 'one committed op');
  const pinched = commits[0].shapes[0];
  assert.ok(Math.abs(pinched.scale - 3) < 0.05, `scaled about 24/8 = 3×: ${pinched.scale}`);
  // One undo step takes the whole pinch back; the next one takes the snap away.
  await phone.eval('snapboard.actions.undo()');
  await settled(phone);
  const restored = (await shapesOf(phone)).find((s) => s.id === shape.id);
  assert.deepEqual([restored.x, restored.y, restored.scale, restored.rotation], [shape.x, shape.y, shape.scale, shape.rotation]);
  await phone.eval('snapboard.actions.undo()');
  await settled(phone);
  assert.equal((await shapesOf(phone)).some((s) => s.id === shape.id), false);
  assert.deepEqual(phone.errors, []);
  watcher.close();
  await phone.close();
});

test('two fingers on empty space zoom the view about them and send nothing (phone)', async () => {
  const phone = await board(server, 'input-view-pinch', 'vic', { width: 390, height: 844, touch: true });
  const watcher = await watch(server, 'input-view-pinch');
  const mid = await phone.screenOf(300, 600);
  const m = { x: Math.round(mid.x), y: Math.round(mid.y) };
  const s0 = await phone.eval('snapboard.view.scale');
  const under = () => phone.eval(`(() => { const r = document.getElementById('board').getBoundingClientRect();
    return snapboard.view.toCanvas({ x: ${m.x} - r.left, y: ${m.y} - r.top }); })()`);
  const p0 = await under();
  const fingers = (r) => [{ x: m.x - r, y: m.y, id: 1 }, { x: m.x + r, y: m.y, id: 2 }];
  await sendsNothing(phone, watcher, async () => {
    await phone.touch('touchStart', [fingers(20)[0]]);
    await phone.touch('touchStart', fingers(20));
    for (let i = 1; i <= 10; i++) await phone.touch('touchMove', fingers(20 + 2 * i));
    await phone.touch('touchEnd', []);
  });
  const s1 = await phone.eval('snapboard.view.scale');
  assert.ok(Math.abs(s1 / s0 - 2) < 1e-6, `spread from 40 to 80 px: ×${s1 / s0}`);
  const p1 = await under();
  assert.ok(Math.hypot(p1.x - p0.x, p1.y - p0.y) < 0.5, `the point between the fingers stayed: ${JSON.stringify([p0, p1])}`);
  await phone.waitFor('the server told the zoom', `snapboard.client.zoom === ${s1}`);
  watcher.close();
  await phone.close();
});

test('arrows move the selection by exactly one grid step along that axis only, Shift by ten, with no snapping', async () => {
  // Pitches 32 across and 24 down, and a neighbour that edge snapping (threshold 5) would catch.
  await canvas(server, { id: 'input-arrows', grid: { x: { pitch: 32 }, y: { pitch: 24 } } });
  const page = await board(server, 'input-arrows', 'ari');
  const watcher = await watch(server, 'input-arrows');
  const shape = await snapped(page, 320, 288), other = await snapped(page, 480, 288);
  const gap = (other.x - other.w / 2) - (shape.x + shape.w / 2);
  assert.ok(gap > 32 && gap - 32 < 10, `one step right ends ${gap - 32} units from the neighbour's edge`);
  const at = await page.screenOf(shape.x, shape.y);
  await page.click(at.x, at.y);
  const moves = [
    ['ArrowRight', [], 32, 0], ['ArrowDown', [], 0, 24], ['ArrowLeft', [], -32, 0], ['ArrowUp', [], 0, -24],
    ['ArrowDown', ['shift'], 0, 240], ['ArrowRight', ['shift'], 320, 0],
  ];
  let expected = { x: shape.x, y: shape.y };
  for (const [key, modifiers, dx, dy] of moves) {
    const seen = watcher.messages.length, sent = page.sent.length;
    await page.key(key, { modifiers });
    await settled(page);
    const [move] = ops(page.sent.slice(sent));
    assert.deepEqual({ op: move.op, dx: move.dx, dy: move.dy, snap: move.snap }, { op: 'move', dx, dy, snap: false }, key);
    const [commit] = committedSince(watcher, seen);
    expected = { x: expected.x + dx, y: expected.y + dy };
    const moved = commit.shapes.find((s) => s.id === shape.id);
    assert.deepEqual({ x: moved.x, y: moved.y }, expected, `${modifiers.join('+')} ${key} moved exactly one ${modifiers.length ? 'ten-step' : 'step'}`);
  }
  // Alt lets the server snap: the op goes without snap:false.
  const sent = page.sent.length;
  await page.key('ArrowLeft', { modifiers: ['alt'] });
  await settled(page);
  const [altMove] = ops(page.sent.slice(sent));
  assert.equal(altMove.snap, undefined);
  assert.deepEqual(page.errors, []);
  watcher.close();
  await page.close();
});

test('Ctrl+A selects every shape (not the page), Escape deselects, Delete deletes in one op, Ctrl+Z and Ctrl+Shift+Z or Ctrl+Y undo and redo, Ctrl+D duplicates', async () => {
  const page = await board(server, 'input-keys', 'kay');
  const watcher = await watch(server, 'input-keys');
  const made = [await snapped(page, 192, 192, 'oval'), await snapped(page, 448, 192, 'star'), await snapped(page, 704, 384, 'triangle')];
  const ids = made.map((s) => s.id).sort();
  await page.eval("window.defaults = []; document.addEventListener('keydown', (e) => defaults.push([e.key, e.defaultPrevented]))");
  await page.key('a', { modifiers: ['ctrl'] });
  assert.deepEqual(await selection(page), ids);
  assert.equal(await page.eval('String(window.getSelection())'), '', 'the page text is not selected');
  await page.key('Escape');
  assert.deepEqual(await selection(page), []);

  await page.key('a', { modifiers: ['ctrl'] });
  let seen = watcher.messages.length;
  await page.key('Delete');
  await settled(page);
  let commits = committedSince(watcher, seen);
  assert.equal(commits.length, 1, 'one delete op');
  assert.deepEqual([...commits[0].removed].sort(), ids);

  const count = async () => (await shapesOf(page)).length;
  await page.key('z', { modifiers: ['ctrl'] });
  await settled(page);
  assert.equal(await count(), 3, 'Ctrl+Z brings all three back');
  await page.key('z', { modifiers: ['ctrl', 'shift'] });
  await settled(page);
  assert.equal(await count(), 0, 'Ctrl+Shift+Z deletes them again');
  await page.key('z', { modifiers: ['ctrl'] });
  await settled(page);
  await page.key('y', { modifiers: ['ctrl'] });
  await settled(page);
  assert.equal(await count(), 0, 'Ctrl+Y redoes');
  await page.key('z', { modifiers: ['ctrl'] });
  await settled(page);
  assert.equal(await count(), 3);

  await page.key('a', { modifiers: ['ctrl'] });
  seen = watcher.messages.length;
  await page.key('d', { modifiers: ['ctrl'] });
  await settled(page);
  await until('the copies committed', () => committedSince(watcher, seen).length > 0);
  commits = committedSince(watcher, seen);
  assert.equal(commits.length, 1, 'one duplicate op for the whole selection (P27)');
  const copies = commits[0].shapes;
  assert.equal(copies.length, 3, 'a copy of each selected shape');
  for (const original of made) {
    const copy = copies.find((s) => s.kind === original.kind);
    assert.ok(copy, `a copy of the ${original.kind}`);
    assert.deepEqual([copy.x, copy.y, copy.w, copy.h, copy.fill, copy.hatch], [original.x + 32, original.y + 32, original.w, original.h, original.fill, original.hatch]);
  }
  assert.deepEqual(await selection(page), copies.map((s) => s.id).sort(), 'the copies are selected');
  const prevented = Object.fromEntries((await page.eval('defaults')).filter(([key]) => key === 'a' || key === 'd'));
  assert.deepEqual(prevented, { a: true, d: true }, 'Ctrl+A and Ctrl+D do not reach the browser (select the page, bookmark)');
  assert.deepEqual(page.errors, []);
  watcher.close();
  await page.close();
});

test('one Ctrl+wheel notch zooms at most 1.25× about the pointer, a trackpad pinch in proportion, and every change is a viewchange', async () => {
  const page = await board(server, 'input-zoom', 'zed');
  await page.eval("window.viewchanges = 0; document.getElementById('board').addEventListener('viewchange', () => viewchanges++)");
  // Whole pixels: mouse events carry integer coordinates.
  const exact = await page.screenOf(300, 200), at = { x: Math.round(exact.x), y: Math.round(exact.y) };
  const view = () => page.eval('({ scale: snapboard.view.scale, ox: snapboard.view.ox, oy: snapboard.view.oy })');
  const under = () => page.eval(`(() => { const r = document.getElementById('board').getBoundingClientRect();
    return snapboard.view.toCanvas({ x: ${at.x} - r.left, y: ${at.y} - r.top }); })()`);
  const frame = () => page.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const s0 = (await view()).scale;
  const p0 = await under();
  await page.wheel(at.x, at.y, 0, -100, { modifiers: ['ctrl'] });
  const s1 = (await view()).scale;
  assert.ok(Math.abs(s1 / s0 - 1.25) < 1e-9, `one notch: ×${s1 / s0}`);
  const p1 = await under();
  assert.ok(Math.abs(p1.x - p0.x) < 1e-6 && Math.abs(p1.y - p0.y) < 1e-6, 'the point under the pointer stays');
  await page.wheel(at.x, at.y, 0, -600, { modifiers: ['ctrl'] });
  const s2 = (await view()).scale;
  assert.ok(s2 / s1 <= 1.25 + 1e-9, `a large delta is still at most one step: ×${s2 / s1}`);
  await page.wheel(at.x, at.y, 0, 8, { modifiers: ['ctrl'] });
  const s3 = (await view()).scale;
  assert.ok(Math.abs(s3 / s2 - 1.25 ** -0.08) < 1e-9, `a trackpad pinch zooms in proportion: ×${s3 / s2}`);
  await frame();
  assert.ok(await page.eval('viewchanges') >= 1);
  // The zoom buttons' actions step about the board's centre, and fit shows the canvas.
  const before = await page.eval('viewchanges');
  const percent = await page.eval('snapboard.actions.zoomPercent');
  await page.eval('snapboard.actions.zoomIn()');
  assert.ok(Math.abs((await view()).scale / s3 - 1.25) < 1e-9);
  assert.equal(await page.eval('snapboard.actions.zoomPercent'), Math.round(s3 * 125));
  assert.notEqual(await page.eval('snapboard.actions.zoomPercent'), percent);
  await page.eval('snapboard.actions.zoomOut()');
  assert.ok(Math.abs((await view()).scale / s3 - 1) < 1e-9);
  await frame();
  assert.ok(await page.eval('viewchanges') > before, 'the zoom buttons fire viewchange too');
  await page.eval('snapboard.actions.zoomToFit()');
  const fitted = await view();
  const box = await page.eval("document.getElementById('board').getBoundingClientRect().toJSON()");
  assert.ok(fitted.ox >= 0 && fitted.ox + 1024 * fitted.scale <= box.width + 1e-6, 'an empty canvas fits whole');
  // The server hears the zoom once the view rests (P21).
  await page.waitFor('the zoom told', `snapboard.client.zoom === ${fitted.scale}`);
  // With shapes, fit shows them, centred, at no more than 100%.
  const a = await snapped(page, 96, 96), b = await snapped(page, 352, 224);
  await page.eval('snapboard.actions.zoomToFit()');
  const v = await view();
  assert.equal(v.scale, 1, 'two shapes that fit at 100% are shown at 100%');
  const left = v.ox + (a.x - a.w / 2) * v.scale, right = v.ox + (b.x + b.w / 2) * v.scale;
  assert.ok(Math.abs(left - (box.width - right)) < 1e-6, `centred across: ${left} and ${box.width - right} clear`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('Space+drag and middle-drag pan the view over a shape, and commit nothing', async () => {
  const page = await board(server, 'input-pan', 'pan');
  const watcher = await watch(server, 'input-pan');
  const shape = await snapped(page, 512, 384);
  const at = await page.screenOf(shape.x, shape.y);
  const offset = () => page.eval('[snapboard.view.ox, snapboard.view.oy]');
  const [ox, oy] = await offset();
  await sendsNothing(page, watcher, async () => {
    await page.call('Input.dispatchKeyEvent', { type: 'keyDown', key: ' ', code: 'Space', text: ' ', windowsVirtualKeyCode: 32 });
    await page.drag(at.x, at.y, at.x + 90, at.y + 40);
    await page.call('Input.dispatchKeyEvent', { type: 'keyUp', key: ' ', code: 'Space', windowsVirtualKeyCode: 32 });
    const [ox1, oy1] = await offset();
    assert.deepEqual([Math.round(ox1 - ox), Math.round(oy1 - oy)], [90, 40], 'Space+drag panned');
    const middle = { button: 'middle', buttons: 4 };
    await page.mouse('mousePressed', at.x, at.y, middle);
    for (let i = 1; i <= 6; i++) await page.mouse('mouseMoved', at.x - 10 * i, at.y, middle);
    await page.mouse('mouseReleased', at.x - 60, at.y, { ...middle, buttons: 0 });
    const [ox2] = await offset();
    assert.equal(Math.round(ox2 - ox1), -60, 'middle-drag panned');
  });
  assert.deepEqual((await shapesOf(page)).find((s) => s.id === shape.id), shape);
  watcher.close();
  await page.close();
});

test('a selected shape has handles: a corner scales it in one op, the knob turns it in one op, both snapped by the server', async () => {
  const page = await board(server, 'input-handles', 'hal');
  const watcher = await watch(server, 'input-handles');
  const shape = await snapped(page, 512, 384);
  const c = await page.screenOf(shape.x, shape.y);
  await page.click(c.x, c.y);
  const handles = () => page.eval(`(async () => {
    const { handlesOf } = await import('/web/page/selection.js');
    const r = document.getElementById('board').getBoundingClientRect();
    const h = handlesOf(snapboard.client.replica.shapes.get('${shape.id}'), snapboard.view);
    const page = (p) => ({ x: p.x + r.left, y: p.y + r.top });
    return { corners: h.corners.map(page), knob: page(h.knob) };
  })()`);
  let h = await handles();
  await page.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const shot = await page.screenshot();
  assert.ok(selectionBlueNear(shot, h.corners[2].x + 5, h.corners[2].y), 'the bottom-right handle is drawn');
  assert.ok(selectionBlueNear(shot, h.knob.x + 5, h.knob.y), 'the rotation knob is drawn');

  // Bottom-right corner dragged out by half the shape's size again: about 1.5×, the top-left corner kept.
  let seen = watcher.messages.length, sent = page.sent.length;
  const half = (shape.w / 2) * (await page.eval('snapboard.view.scale'));
  await page.drag(h.corners[2].x, h.corners[2].y, h.corners[2].x + half, h.corners[2].y + half);
  await settled(page);
  assert.deepEqual([...new Set(ops(page.sent.slice(sent)).map((m) => m.op))], ['scale']);
  let commits = committedSince(watcher, seen);
  assert.equal(commits.length, 1, 'one op');
  const scaled = commits[0].shapes[0];
  assert.ok(Math.abs(scaled.scale - 1.5) < 0.1, `scale ${scaled.scale}`);
  assert.ok(Math.abs((scaled.x - scaled.w * scaled.scale / 2) - (shape.x - shape.w / 2)) < 6, 'the opposite corner stayed');

  // The knob dragged a quarter turn clockwise about the centre: 90°, which the angle snapping holds.
  h = await handles();
  const centre = await page.screenOf(scaled.x, scaled.y);
  const radius = centre.y - h.knob.y;
  seen = watcher.messages.length;
  sent = page.sent.length;
  await page.mouse('mouseMoved', h.knob.x, h.knob.y, { buttons: 0, button: 'none' });
  await page.mouse('mousePressed', h.knob.x, h.knob.y);
  for (let i = 1; i <= 12; i++) {
    const a = -Math.PI / 2 + (Math.PI / 2) * (i / 12);
    await page.mouse('mouseMoved', centre.x + radius * Math.cos(a), centre.y + radius * Math.sin(a));
    await new Promise((r) => setTimeout(r, 20));
  }
  await page.mouse('mouseReleased', centre.x + radius, centre.y);
  await settled(page);
  assert.deepEqual([...new Set(ops(page.sent.slice(sent)).map((m) => m.op))], ['rotate']);
  commits = committedSince(watcher, seen);
  assert.equal(commits.length, 1, 'one op');
  assert.ok(Math.abs(commits[0].shapes[0].rotation - Math.PI / 2) < 1e-9, `rotation ${commits[0].shapes[0].rotation}`);
  assert.deepEqual(page.errors, []);
  watcher.close();
  await page.close();
});

test("on a phone a finger on a small selected shape moves it, though its corner handles are within a finger's reach", async () => {
  const phone = await board(server, 'input-small', 'sol', { width: 390, height: 844, touch: true });
  const dot = await snapped(phone, 512, 384, 'dot');
  const c = await phone.screenOf(dot.x, dot.y);
  assert.ok(dot.w * (await phone.eval('snapboard.view.scale')) < 18, 'the dot is smaller than a fingertip');
  await phone.touch('touchStart', [{ x: c.x, y: c.y, id: 1 }]);
  await phone.touch('touchEnd', []);
  assert.deepEqual(await selection(phone), [dot.id]);
  const sent = phone.sent.length;
  await phone.touch('touchStart', [{ x: c.x, y: c.y, id: 1 }]);
  for (let i = 1; i <= 8; i++) {
    await phone.touch('touchMove', [{ x: c.x + 8 * i, y: c.y, id: 1 }]);
    await new Promise((r) => setTimeout(r, 20));
  }
  await phone.touch('touchEnd', []);
  await settled(phone);
  assert.deepEqual([...new Set(ops(phone.sent.slice(sent)).map((m) => m.op))], ['move']);
  await phone.close();
});

test('a layout canvas draws its cells, and a tap on an occupied cell is sent as any tap', async () => {
  const made = await canvas(server, { id: 'input-layout', layout: { mode: 'flexible', rows: 2, columns: 3, padding: 32 } });
  const page = await board(server, 'input-layout', 'lay');
  const layout = await page.eval('snapboard.client.replica.layout');
  assert.equal(layout.columns, made.layout.columns);
  const { cellFill } = await import('../../Sources/SnapboardWeb/page/render.js');
  const want = [1, 3, 5].map((i) => parseInt(cellFill.slice(i, i + 2), 16));
  await page.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const shot = await page.screenshot();
  const close = (got, rgb) => rgb.every((v, i) => Math.abs(v - got[i]) <= 3);
  for (let r = 0; r < layout.rows; r++) {
    for (let c = 0; c < layout.columns; c++) {
      const x = layout.padding + c * (layout.cellWidth + layout.padding), y = layout.padding + r * (layout.cellHeight + layout.padding);
      const inside = await page.screenOf(x + layout.cellWidth / 4, y + layout.cellHeight / 4);
      assert.ok(close(shot.pixel(inside.x, inside.y), want), `cell (${r}, ${c}) is drawn: ${shot.pixel(inside.x, inside.y)}`);
      const gutter = await page.screenOf(x - layout.padding / 2, y + layout.cellHeight / 2);
      assert.ok(close(shot.pixel(gutter.x, gutter.y), [255, 255, 255]), `the padding left of cell (${r}, ${c}) is the canvas's white`);
    }
  }
  // Two taps in the first cell, far enough apart not to be a double-tap: the second lands on the cell's
  // free strip above the square shape (fitted shapes keep their aspect).
  const cell = await page.screenOf(layout.padding + 8, layout.padding + 8);
  await page.click(cell.x, cell.y);
  await settled(page);
  await page.waitFor('the first shape', 'snapboard.client.replica.shapes.size === 1');
  const sent = page.sent.length;
  const again = await page.screenOf(layout.padding + layout.cellWidth / 2, layout.padding + 8);
  await page.click(again.x, again.y);
  await settled(page);
  assert.deepEqual(ops(page.sent.slice(sent)).map((m) => m.op), ['snap'], 'the tap on the occupied cell went to the server');
  const cellOf = (s) => [Math.floor((s.y - layout.padding) / (layout.cellHeight + layout.padding)), Math.floor((s.x - layout.padding) / (layout.cellWidth + layout.padding))];
  const cells = (await shapesOf(page)).map(cellOf);
  assert.deepEqual(cells, [[0, 0], [0, 1]], 'the server put the second shape in the nearest free cell');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a viewer selects, pans and zooms, but a drag, a tap and the editing keys send nothing and draw no change; no handles", async () => {
  const secret = 'a-page-input-test-secret-of-more-than-32-bytes';
  const own = await startServer({ args: ['--auth-secret', secret] });
  servers.push(own);
  const mint = (role, sub) => execFileSync(serverBinary, ['token', '--canvas', 'input-viewer', '--role', role, '--ttl', '10m', '--sub', sub, '--secret', secret]).toString().trim();
  const editor = await board(own, 'input-viewer', 'ed', { query: `&token=${mint('editor', 'ed')}` });
  const shape = await snapped(editor, 512, 384);
  const viewer = await board(own, 'input-viewer', 'vi', { query: `&token=${mint('viewer', 'vi')}` });
  await viewer.waitFor('the shape', `snapboard.client.replica.shapes.has('${shape.id}')`);
  assert.equal(await viewer.eval('snapboard.client.canEdit'), false);
  const watcher = await watch(own, 'input-viewer', { token: mint('viewer', 'watch') });
  const seen = watcher.messages.length, sent = viewer.sent.length;
  const at = await viewer.screenOf(shape.x, shape.y);
  await click(viewer, at.x, at.y);
  assert.deepEqual(await selection(viewer), [shape.id], 'a viewer may select');
  const knob = await viewer.eval(`(async () => {
    const { handlesOf } = await import('/web/page/selection.js');
    const r = document.getElementById('board').getBoundingClientRect();
    const k = handlesOf(snapboard.client.replica.shapes.get('${shape.id}'), snapboard.view).knob;
    return { x: k.x + r.left, y: k.y + r.top };
  })()`);
  await viewer.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const shot = await viewer.screenshot();
  assert.equal(selectionBlueNear(shot, knob.x + 5, knob.y), false, 'no rotation knob for a viewer');

  const [ox] = await viewer.eval('[snapboard.view.ox]');
  await viewer.drag(at.x, at.y, at.x + 80, at.y);
  assert.deepEqual((await shapesOf(viewer)).find((s) => s.id === shape.id), shape, 'the shape is drawn where it was');
  assert.equal(await viewer.eval('snapboard.client.gestures.size'), 0);
  assert.equal(Math.round((await viewer.eval('snapboard.view.ox')) - ox), 80, "the viewer's drag panned instead");
  const empty = await viewer.screenOf(200, 600);
  await click(viewer, empty.x, empty.y);
  await click(viewer, at.x + 80, at.y);
  for (const [key, modifiers] of [['ArrowRight', []], ['Delete', []], ['d', ['ctrl']], ['z', ['ctrl']], ['y', ['ctrl']], ['+', []], ['r', []]]) {
    await viewer.key(key, { modifiers });
  }
  const s0 = await viewer.eval('snapboard.view.scale');
  await viewer.wheel(at.x, at.y, 0, -100, { modifiers: ['ctrl'] });
  assert.ok(Math.abs((await viewer.eval('snapboard.view.scale')) / s0 - 1.25) < 1e-9, 'a viewer may zoom');
  assert.equal((await shapesOf(viewer)).length, 1);
  // The viewer wrote nothing at all but pings and views; the editor's marker shows the watcher is caught up.
  const marker = await editor.eval("snapboard.client.snap(1000, 740, { kind: 'dot' })");
  await until('the marker', () => watcher.messages.slice(seen).some((m) => m.type === 'delta' && m.ops?.includes(marker)));
  assert.deepEqual(viewer.sent.slice(sent).filter((m) => m.type !== 'ping' && m.type !== 'view'), [], `the viewer sent ${JSON.stringify(viewer.sent.slice(sent))}`);
  assert.deepEqual(watcher.messages.slice(seen).filter((m) => m.type === 'delta').map((d) => d.ops), [[marker]]);
  assert.deepEqual(viewer.errors, []);
  watcher.close();
  await editor.close();
  await viewer.close();
});

test('once the token expires the board is read-only: a drag, keys and taps draw no change and queue nothing', async () => {
  const secret = 'a-page-input-test-secret-of-more-than-32-bytes';
  const own = await startServer({ args: ['--auth-secret', secret] });
  servers.push(own);
  const token = execFileSync(serverBinary, ['token', '--canvas', 'input-expiry', '--role', 'editor', '--ttl', '3s', '--sub', 'eve', '--secret', secret]).toString().trim();
  const page = await board(own, 'input-expiry', 'eve', { query: `&token=${token}` });
  const shape = await snapped(page, 512, 384);
  await page.waitFor('the token expired', "snapboard.client.state === 'expired'", 10000);
  const at = await page.screenOf(shape.x, shape.y);
  await page.drag(at.x, at.y, at.x + 120, at.y + 60);
  assert.deepEqual(await selection(page), [shape.id]);
  for (const key of ['Delete', 'ArrowRight']) await page.key(key);
  await page.key('d', { modifiers: ['ctrl'] });
  // The first tap deselects, the second would snap a shape.
  for (const [x, y] of [[200, 600], [800, 600]]) {
    const empty = await page.screenOf(x, y);
    await page.click(empty.x, empty.y);
  }
  assert.deepEqual(await shapesOf(page), [shape], 'drawn as it was, and no predicted shape');
  assert.equal(await page.eval('snapboard.client.gestures.size + snapboard.client.pending.ops.length'), 0, 'nothing waits to be sent');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("this page's own cursor is never drawn, and other people's cursors go while the connection is down", async () => {
  const own = await startServer();
  servers.push(own);
  const ann = await board(own, 'input-cursors', 'ann'), ben = await board(own, 'input-cursors', 'ben');
  const p = await ben.screenOf(700, 500);
  await ben.mouse('mouseMoved', p.x, p.y, { buttons: 0, button: 'none' });
  const benSession = await ben.eval('snapboard.client.replica.session');
  await ann.waitFor("ben's cursor", `snapboard.client.replica.cursors.has(${benSession})`);
  const color = await ann.eval(`snapboard.client.replica.sessions.get(${benSession}).color`);
  const want = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
  const q = await ann.screenOf(700, 500);
  const drawn = async (page, x, y, rgb) => {
    await page.eval('snapboard.invalidate(); new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    const shot = await page.screenshot();
    return rgb.every((v, i) => Math.abs(v - shot.pixel(x + 5, y + 8)[i]) < 40);
  };
  assert.ok(await drawn(ann, q.x, q.y, want), "ben's cursor is drawn in ann's page");
  // Ann's own session in her replica's cursors (as a server might list it) is still not drawn.
  const annSession = await ann.eval('snapboard.client.replica.session');
  const annColor = await ann.eval(`snapboard.client.replica.sessions.get(${annSession}).color`);
  const r = await ann.screenOf(300, 200);
  await ann.eval(`snapboard.client.replica.cursors.set(${annSession}, { x: 300, y: 200 })`);
  assert.equal(await drawn(ann, r.x, r.y, [1, 3, 5].map((i) => parseInt(annColor.slice(i, i + 2), 16))), false, 'her own cursor is not drawn');
  await own.kill();
  await ann.waitFor('offline', "snapboard.client.state !== 'connected'");
  assert.equal(await drawn(ann, q.x, q.y, want), false, "ben's cursor is gone once the connection is");
  await ann.close();
  await ben.close();
});

/** The gesture ends the page sent after index `sent` of its messages. */
const endsSince = (page, sent) => ops(page.sent.slice(sent)).filter((m) => m.phase === 'end');

/** The handles of the shape `id` as page coordinates: {corners, knob}. */
const handlesOn = (page, id) => page.eval(`(async () => {
  const { handlesOf } = await import('/web/page/selection.js');
  const r = document.getElementById('board').getBoundingClientRect();
  const h = handlesOf(snapboard.client.replica.shapes.get('${id}'), snapboard.view);
  const page = (p) => ({ x: p.x + r.left, y: p.y + r.top });
  return { corners: h.corners.map(page), knob: page(h.knob) };
})()`);

test('a drag, a corner drag or a knob drag that ends back within the slop of where it began ends with identity parameters, and nothing commits', async () => {
  const page = await board(server, 'input-return', 'ret');
  const watcher = await watch(server, 'input-return');
  const shape = await snapped(page, 512, 384);
  const c = await page.screenOf(shape.x, shape.y);
  await page.click(c.x, c.y);
  const seen = watcher.messages.length;

  // A move out 60 px and back to 2 px from where it began (within the mouse's slop of 4).
  let sent = page.sent.length;
  await dragThrough(page, [c, ...[20, 40, 60, 40, 20].map((d) => ({ x: c.x + d, y: c.y + d / 2 })), { x: c.x + 2, y: c.y }]);
  await settled(page);
  let ends = endsSince(page, sent);
  assert.deepEqual(ends.map((m) => [m.op, m.dx, m.dy]), [['move', 0, 0]], `the move ends with (0, 0): ${JSON.stringify(ends)}`);

  // The bottom-right corner dragged out and back: a scale by 1, no turn.
  let h = await handlesOn(page, shape.id);
  const corner = h.corners[2];
  sent = page.sent.length;
  await dragThrough(page, [corner, ...[15, 30, 45, 30, 15].map((d) => ({ x: corner.x + d, y: corner.y + d })), { x: corner.x + 1, y: corner.y + 2 }]);
  await settled(page);
  ends = endsSince(page, sent);
  assert.deepEqual(ends.map((m) => [m.op, m.factor, m.radians ?? 0]), [['scale', 1, 0]], `the scale ends with factor 1: ${JSON.stringify(ends)}`);

  // The knob swung an eighth of a turn and back: a turn by 0.
  h = await handlesOn(page, shape.id);
  const centre = await page.screenOf(shape.x, shape.y);
  const radius = centre.y - h.knob.y;
  const onArc = (a) => ({ x: centre.x + radius * Math.cos(a), y: centre.y + radius * Math.sin(a) });
  sent = page.sent.length;
  await dragThrough(page, [h.knob, ...[1, 2, 3, 4, 3, 2, 1].map((i) => onArc(-Math.PI / 2 + (Math.PI / 4) * (i / 4))), { x: h.knob.x + 1, y: h.knob.y }]);
  await settled(page);
  ends = endsSince(page, sent);
  assert.deepEqual(ends.map((m) => [m.op, m.radians]), [['rotate', 0]], `the turn ends with 0 radians: ${JSON.stringify(ends)}`);

  assert.deepEqual(await commitsBeforeMarker(page, watcher, seen), [], 'the server committed none of the three');
  const now = (await shapesOf(page)).find((s) => s.id === shape.id);
  assert.deepEqual([now.x, now.y, now.scale, now.rotation], [shape.x, shape.y, shape.scale, shape.rotation]);
  assert.deepEqual(page.errors, []);
  watcher.close();
  await page.close();
});

test('Escape during a drag cancels it: the gesture ends with a move of (0, 0), the release sends nothing more, and the shape stays selected', async () => {
  const page = await board(server, 'input-escape', 'esc');
  const watcher = await watch(server, 'input-escape');
  const shape = await snapped(page, 512, 384);
  const c = await page.screenOf(shape.x, shape.y);
  const seen = watcher.messages.length, sent = page.sent.length;
  await page.mouse('mouseMoved', c.x, c.y, { buttons: 0, button: 'none' });
  await page.mouse('mousePressed', c.x, c.y);
  for (let i = 1; i <= 6; i++) {
    await page.mouse('mouseMoved', c.x + 15 * i, c.y);
    await new Promise((r) => setTimeout(r, 20));
  }
  await page.key('Escape');
  await page.mouse('mouseMoved', c.x + 120, c.y + 30);
  await page.mouse('mouseReleased', c.x + 120, c.y + 30);
  await settled(page);
  const sentNow = ops(page.sent.slice(sent));
  assert.deepEqual(endsSince(page, sent).map((m) => [m.op, m.dx, m.dy]), [['move', 0, 0]], `one end, with (0, 0): ${JSON.stringify(sentNow)}`);
  assert.equal(sentNow.at(-1).phase, 'end', 'nothing after the cancelled end');
  assert.deepEqual(await selection(page), [shape.id], 'Escape cancelled the drag and kept the selection');
  assert.deepEqual(await commitsBeforeMarker(page, watcher, seen), [], 'nothing committed');
  const now = (await shapesOf(page)).find((s) => s.id === shape.id);
  assert.deepEqual([now.x, now.y], [shape.x, shape.y]);
  assert.deepEqual(page.errors, []);
  watcher.close();
  await page.close();
});

test('a pinch that ends within the slop of how it began ends with factor 1, and one that scaled leaves no angle shown once a finger lifts (phone)', async () => {
  const phone = await board(server, 'input-pinch-back', 'pib', { width: 390, height: 844, touch: true });
  const watcher = await watch(server, 'input-pinch-back');
  const shape = await snapped(phone, 512, 384);
  const c = await phone.screenOf(shape.x, shape.y);
  const fingers = (r) => [{ x: c.x - r, y: c.y, id: 1 }, { x: c.x + r, y: c.y, id: 2 }];
  const pinch = async (radii) => {
    await phone.touch('touchStart', [fingers(radii[0])[0]]);
    await phone.touch('touchStart', fingers(radii[0]));
    for (const r of radii.slice(1)) {
      await phone.touch('touchMove', fingers(r));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const seen = watcher.messages.length;
  let sent = phone.sent.length;
  // Spread from 16 to 60 px apart and back to 18: within the touch slop of 10.
  await pinch([8, 14, 20, 26, 30, 22, 14, 9]);
  await phone.touch('touchEnd', []);
  await settled(phone);
  const ends = endsSince(phone, sent);
  assert.deepEqual(ends.map((m) => [m.op, m.factor, m.radians ?? 0]), [['scale', 1, 0]], `the pinch ends with factor 1: ${JSON.stringify(ends)}`);
  assert.deepEqual(await commitsBeforeMarker(phone, watcher, seen, { marker: "snapboard.client.snap(100, 100, { kind: 'dot' })" }), [], 'nothing committed');

  // A pinch that does scale: one finger lifts, the commit arrives, and no "0°" stays on the shape.
  sent = phone.sent.length;
  await pinch([8, 12, 16, 20, 24]);
  assert.equal(await phone.eval('snapboard.ui.angleShape'), shape.id, 'the angle shows while pinching');
  await phone.touch('touchEnd', [fingers(24)[1]]);
  await settled(phone);
  assert.equal(endsSince(phone, sent).length, 1, 'the lifted finger ended the pinch');
  assert.equal(await phone.eval('snapboard.ui.angleShape'), null, 'no angle shown once the pinch ended');
  await phone.touch('touchEnd', []);
  await phone.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  assert.equal(await phone.eval('snapboard.ui.angleShape'), null);
  assert.deepEqual(phone.errors, []);
  watcher.close();
  await phone.close();
});

test("the board's keys work wherever the focus is but a field or a dialog: after History's close, a click on the status line, the people list or a banner", async () => {
  const page = await board(server, 'input-focus', 'foc');
  const made = [await snapped(page, 192, 192), await snapped(page, 448, 192)];
  const ids = made.map((s) => s.id).sort();
  const count = async () => (await shapesOf(page)).length;
  const clickAt = async (selector) => {
    const r = await page.eval(`(() => { const b = document.querySelector('${selector}').getBoundingClientRect(); return { x: b.left + Math.min(8, b.width / 2), y: b.top + b.height / 2 }; })()`);
    await click(page, r.x, r.y);
  };
  /** Ctrl+A selects every shape and not the page's text, Delete deletes them, Ctrl+Z brings them back. */
  const keysAct = async (where) => {
    await page.key('a', { modifiers: ['ctrl'] });
    assert.deepEqual(await selection(page), ids, `${where}: Ctrl+A selected the shapes`);
    assert.equal(await page.eval('String(window.getSelection())'), '', `${where}: not the page's text`);
    await page.key('Delete');
    await settled(page);
    assert.equal(await count(), 0, `${where}: Delete deleted them`);
    await page.key('z', { modifiers: ['ctrl'] });
    await settled(page);
    assert.equal(await count(), 2, `${where}: Ctrl+Z brought them back`);
    await page.key('Escape');
  };

  await clickAt('#history-button');
  await page.waitFor('the history', "!document.getElementById('history').hidden");
  await clickAt('#history-close');
  assert.equal(await page.eval('document.activeElement.id'), 'board', "History's close gives the focus back to the board");
  await keysAct('after History closed');
  await clickAt('#state');
  await keysAct('after a click on the status line');
  await clickAt('#sessions li');
  await keysAct('after a click on the people list');
  await page.eval("snapboard.status.set('note', 'A message for the person')");
  await clickAt('#banners [data-key="note"]');
  await keysAct('after a click on a banner');

  // In an open dialog the keys are the dialog's: Ctrl+A and Delete in the share dialog's link leave the board alone.
  await clickAt('#share-button');
  await page.waitFor('the share dialog', "document.getElementById('share-dialog').open");
  await page.eval("document.getElementById('share-link').focus()");
  await page.key('a', { modifiers: ['ctrl'] });
  await page.key('Delete');
  assert.deepEqual(await selection(page), [], 'the board selected nothing');
  assert.equal(await page.eval("(() => { const i = document.getElementById('share-link'); return i.selectionEnd - i.selectionStart; })()"),
    await page.eval("document.getElementById('share-link').value.length"), "Ctrl+A selected the link's text");
  await settled(page);
  assert.equal(await count(), 2);
  assert.deepEqual(page.errors, []);
  await page.close();
});
