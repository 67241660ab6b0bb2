// Text, notes and style (protocol 1.7, P26) on the page, in Debian's real Chromium against a real
// snapboard-server: the Note and Text tools open an editor over the new shape, whose text reaches a second
// client; the style picker is one `style` op the watcher sees, and new shapes take the last style; while
// one page edits a shape's text the other sees who and cannot open its editor; Escape commits nothing.
// Each page's outgoing frames are recorded over CDP, and a second client watches the wire (support.mjs
// `watch`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fillFromColor, hexOfFill, palette } from '../../Sources/SnapboardWeb/lib/index.js';
import { author, describe } from '../../Sources/SnapboardWeb/page/history.js';
import { keyHelp } from '../../Sources/SnapboardWeb/page/keyboard.js';
import { refusals } from '../../Sources/SnapboardWeb/page/status.js';
import { keepAliveMs } from '../../Sources/SnapboardWeb/page/text-editor.js';
import { get, until } from './support.mjs';
import * as shared from './page-support.mjs';
import { ops } from './page-support.mjs';

let server;
// Chromium and a real server for the file's tests; board pages, watchers and patient waits (page-support.mjs).
const { board, watcher, settled, snapped, patient } = shared.pageSuite((_, s) => { server = s; });

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** The watcher's canvas as its welcome and committed deltas leave it: each shape by id. */
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

const isShown = (page, selector) => page.eval(`(() => { const e = document.querySelector('${selector}'); return !!e && e.getClientRects().length > 0; })()`);
const editorOpen = (page) => page.eval("document.querySelector('textarea.text-editor') !== null");
/** Types `text` into what has the focus, as an IME or a paste would insert it. */
const type = (page, text) => page.call('Input.insertText', { text });
/** Clicks a button in the page by its selector. */
const press = (page, selector) => page.eval(`document.querySelector('${selector}').click()`);
/** The text ops the page sent since index `from` of its frames, without their ids. */
const textOps = (page, from) => ops(page.sent.slice(from)).filter((m) => m.op === 'text').map(({ type: _, id: __, ...op }) => op);

/** A double-click on the shape centred at canvas (x, y): two clicks, as a person makes them. */
async function doubleClick(page, x, y) {
  const at = await page.screenOf(x, y);
  await page.click(at.x, at.y);
  await page.click(at.x, at.y);
}

/** Records every text the status line's hint shows in `window.hints` (a hint goes after a few seconds). */
const recordHints = (page) => page.eval(`window.hints = []; const hint = document.getElementById('hint');
  new MutationObserver(() => hints.push(hint.textContent)).observe(hint, { childList: true, characterData: true, subtree: true });`);

/** Proves that `act` sent no committing op: a marker snapped afterwards is the only commit since. */
async function commitsNothing(page, w, act) {
  const seen = w.messages.length;
  await act();
  const commits = await shared.commitsBeforeMarker(page, w, seen, { timeout: patient });
  assert.deepEqual(commits, [], 'nothing committed before the marker');
}

test('the help lists Enter and double-click for writing in a shape, and the new refusals are sentences', () => {
  assert.ok(keyHelp.some((k) => k.keys.includes('Enter') && /Write in the selected shape/.test(k.does)));
  assert.match(refusals.bad_text, /character/);
  assert.match(refusals.bad_style, /colour/);
});

test('acceptance: a note made with the Note tool and written in appears with its text on a second client, and in the server\'s canvas', async () => {
  const w = await watcher('content-note');
  const page = await board('content-note', 'ann');
  const other = await board('content-note', 'ben');
  await press(page, '#kinds [data-kind="note"]');
  assert.equal(await page.eval('snapboard.toolbar.kind'), 'note');
  const sent = page.sent.length;
  const at = await page.screenOf(400, 300);
  await page.click(at.x, at.y);
  await page.waitFor('the editor open over the new note', "document.activeElement?.classList.contains('text-editor')", patient);
  const [snap] = ops(page.sent.slice(sent));
  assert.equal(snap.op, 'snap');
  assert.equal(snap.shape.kind, 'note');
  const id = snap.shapeId;
  const annSession = await page.eval('snapboard.client.replica.session');
  await other.waitFor('ben sees ann editing the note', `snapboard.client.replica.leases['${id}'] === ${annSession}`, patient);
  await type(page, 'Retro actions');
  await type(page, '\n');
  await type(page, 'ship it');
  await pause(400);
  await page.key('Enter', { modifiers: ['ctrl'] });
  assert.equal(await editorOpen(page), false, 'Ctrl+Enter closed the editor');
  await settled(page);
  const text = 'Retro actions\nship it';
  assert.deepEqual(textOps(page, sent).at(0), { op: 'text', shape: id, phase: 'begin' });
  assert.deepEqual(textOps(page, sent).at(-1), { op: 'text', shape: id, phase: 'end', text });
  assert.ok(textOps(page, sent).some((m) => m.phase === 'update' && m.text === text), 'the draft went as an update before the end');

  const seen = await until('the watcher has the note with its text', () => { const s = watched(w).get(id); return s?.text === text && s; }, patient);
  assert.equal(seen.kind, 'note');
  assert.deepEqual([seen.w, seen.h], [200, 200]);
  assert.equal(hexOfFill(seen.fill), palette.yellow, 'a note is yellow');
  await other.waitFor('ben draws it with its text', `snapboard.client.replica.shapes.get('${id}')?.text === ${JSON.stringify(text)}`, patient);
  assert.equal(await other.eval(`snapboard.client.replica.leases['${id}']`), undefined, 'the lease went with the end');
  const { body } = await get(server, '/v1/canvases/content-note');
  assert.equal(body.shapes.find((s) => s.id === id)?.text, text, 'GET has it too');
  // History says it in words: the note added, then written in.
  const history = (await get(server, '/v1/canvases/content-note/history')).body;
  const kindOf = (shape) => body.shapes.find((s) => s.id === shape)?.kind;
  assert.deepEqual(history.ops.map((e) => `${author(e)} ${describe(e, kindOf)}`), ['ann added a note', 'ann wrote in a note']);

  // The text is drawn: dark ink in the pixels of the note's middle on ben's page.
  const ink = await other.eval(`(() => { const r = document.getElementById('board').getBoundingClientRect();
    const s = snapboard.client.replica.shapes.get('${id}'), p = snapboard.view.toScreen({ x: s.x, y: s.y }); return { x: p.x + r.left, y: p.y + r.top, k: snapboard.view.scale }; })()`);
  await other.eval('snapboard.invalidate(); new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const shot = await other.screenshot();
  let dark = 0, yellow = 0;
  for (let dx = -60; dx <= 60; dx += 2) for (let dy = -30; dy <= 30; dy += 2) {
    const [r, g, b] = shot.pixel(ink.x + dx * ink.k, ink.y + dy * ink.k);
    if (r < 110 && g < 110 && b < 110) dark++;
    if (r > 240 && g > 220 && b > 130 && b < 175) yellow++;
  }
  assert.ok(dark > 10 && yellow > 100, `ink on yellow in the note's middle: ${dark} dark, ${yellow} yellow samples`);
  assert.deepEqual([...page.errors, ...other.errors], []);
  await page.close();
  await other.close();
});

test('the Text tool makes a text shape whose editor opens at once (one left empty is deleted); Enter on a selected shape and a double-click on one open it too', async () => {
  const w = await watcher('content-text');
  const page = await board('content-text', 'ann');
  await press(page, '#kinds [data-kind="text"]');
  const at = await page.screenOf(300, 200);
  await page.click(at.x, at.y);
  await page.waitFor('the editor open', "document.activeElement?.classList.contains('text-editor')", patient);
  const id = await page.eval('snapboard.editor.editing');
  await type(page, 'A heading');
  await page.eval('snapboard.client.replica.shapes.size'); // let the input event run
  await page.eval("document.getElementById('board').focus()");
  assert.equal(await editorOpen(page), false, 'a blur commits and closes it');
  await until('the text committed', () => watched(w).get(id)?.text === 'A heading', patient);
  const made = watched(w).get(id);
  assert.deepEqual([made.kind, made.w, made.h, made.fill.a], ['text', 240, 60, 0]);

  // Enter on the selected shape opens the editor; a double-click on another shape does too.
  await page.eval(`snapboard.actions.select('${id}')`);
  await page.key('Enter');
  await page.waitFor('the editor open by Enter', `snapboard.editor.editing === '${id}'`);
  assert.equal(await page.eval("document.querySelector('textarea.text-editor').value"), 'A heading', 'it holds the text as committed');
  await page.key('Escape');
  await page.waitFor('closed', 'snapboard.editor.editing === null');
  await press(page, '#kinds [data-kind="star"]');
  const star = await snapped(page, 600, 400, 'star');
  await doubleClick(page, star.x, star.y);
  await page.waitFor('the editor open on the star', `snapboard.editor.editing === '${star.id}'`);
  await type(page, 'Label');
  await page.key('Enter', { modifiers: ['ctrl'] });
  await until('the star\'s label committed', () => watched(w).get(star.id)?.text === 'Label', patient);
  assert.equal(watched(w).get(star.id).kind, 'star');

  // A new text left empty would draw nothing: it goes when its editor closes.
  await press(page, '#kinds [data-kind="text"]');
  await page.eval('snapboard.actions.deselect()');
  const empty = await page.screenOf(200, 600);
  await page.click(empty.x, empty.y);
  await page.waitFor('the editor open', "document.activeElement?.classList.contains('text-editor')", patient);
  const gone = await page.eval('snapboard.editor.editing');
  await until('the empty text on the canvas', () => watched(w).has(gone), patient);
  await page.eval("document.getElementById('board').focus()");
  await until('the empty text deleted', () => !watched(w).has(gone), patient);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a colour, a width, an opacity and a font size from the style picker are one style op each that the watcher sees; new shapes take the last style, remembered across a reload', async () => {
  const w = await watcher('content-style');
  const page = await board('content-style', 'ann');
  await page.eval("localStorage.removeItem('snapboard.style')");
  await press(page, '#kinds [data-kind="roundedRect"]');
  const s = await snapped(page, 300, 300);
  const before = watched(w).get(s.id) ?? s;
  await page.eval(`snapboard.actions.select('${s.id}')`);
  await press(page, '#style-menu');
  await page.waitFor('the style panel open', "document.getElementById('style-menu').getAttribute('aria-expanded') === 'true'");
  assert.ok(await isShown(page, '#style-panel'));
  assert.equal(await page.eval("document.querySelectorAll('#style-panel [data-field=fill]').length"), 12, 'the 12 palette colours');

  /** Runs `act`, and returns the one op it sent and the committed delta of it. */
  const oneOp = async (act) => {
    const sent = page.sent.length;
    await act();
    const op = await until('the op sent', () => ops(page.sent.slice(sent))[0], patient);
    const delta = await until('the op committed', () => w.committed().find((d) => d.ops?.includes(op.id)), patient);
    await settled(page);
    assert.equal(ops(page.sent.slice(sent)).length, 1, 'one op');
    const { type: _, id: __, ...rest } = op;
    return { op: rest, delta };
  };
  const red = await oneOp(() => press(page, '#style-panel [data-field="fill"][data-color="red"]'));
  assert.deepEqual(red.op, { op: 'style', shapes: [s.id], fill: 'red' });
  const styled = red.delta.shapes.find((x) => x.id === s.id);
  assert.deepEqual(styled.fill, fillFromColor('red', before.fill.a), 'the fill is exactly red, its alpha kept');
  const blue = await oneOp(() => press(page, '#style-panel [data-field="stroke"][data-color="blue"]'));
  assert.deepEqual(blue.op, { op: 'style', shapes: [s.id], stroke: 'blue' });
  assert.equal(blue.delta.shapes[0].stroke, palette.blue);
  const width = await oneOp(() => page.eval("(() => { const e = document.getElementById('stroke-width'); e.value = '5'; e.dispatchEvent(new Event('change')); })()"));
  assert.deepEqual(width.op, { op: 'style', shapes: [s.id], strokeWidth: 5 });
  const opacity = await oneOp(() => page.eval("(() => { const e = document.getElementById('opacity'); e.value = '50'; e.dispatchEvent(new Event('change')); })()"));
  assert.deepEqual(opacity.op, { op: 'style', shapes: [s.id], opacity: 0.5 });
  const font = await oneOp(() => page.eval("(() => { const e = document.getElementById('font-size'); e.value = '40'; e.dispatchEvent(new Event('change')); })()"));
  assert.deepEqual(font.op, { op: 'style', shapes: [s.id], fontSize: 40 });
  const look = watched(w).get(s.id);
  assert.deepEqual([look.stroke, look.strokeWidth, look.opacity, look.fontSize], [palette.blue, 5, 0.5, 40]);

  // Nothing selected: a choice sends nothing, and is remembered for new shapes.
  await page.eval('snapboard.actions.deselect()');
  await commitsNothing(page, w, () => press(page, '#style-panel [data-field="fill"][data-color="teal"]'));
  assert.deepEqual(JSON.parse(await page.eval("localStorage.getItem('snapboard.style')")), { fill: 'teal', stroke: 'blue', strokeWidth: 5, opacity: 0.5, fontSize: 40 });
  await page.eval("document.getElementById('board').focus()");
  await page.waitFor('the panel folded', "document.getElementById('style-menu').getAttribute('aria-expanded') === 'false'").catch(() => press(page, '#style-menu'));

  const newShape = async (p, x, y) => {
    const sent = p.sent.length;
    const at = await p.screenOf(x, y);
    await p.click(at.x, at.y);
    const snap = await until('the snap sent', () => ops(p.sent.slice(sent)).find((m) => m.op === 'snap'), patient);
    const delta = await until('the snap committed', () => w.committed().find((d) => d.ops?.includes(snap.id)), patient);
    await shared.settled(p, patient);
    return { snap, shape: delta.shapes[0] };
  };
  const made = await newShape(page, 640, 480);
  assert.deepEqual(made.snap.shape, { kind: 'roundedRect', fill: 'teal', stroke: 'blue', strokeWidth: 5, opacity: 0.5, fontSize: 40 });
  assert.equal(hexOfFill(made.shape.fill), palette.teal);
  assert.deepEqual([made.shape.stroke, made.shape.strokeWidth, made.shape.opacity, made.shape.fontSize], [palette.blue, 5, 0.5, 40]);

  // A reload keeps it: the next shape takes the same style.
  await page.goto(`${server.http}/c/content-style?name=ann`);
  await page.waitFor('ann connected again', "window.snapboard?.client.state === 'connected'", 45000);
  assert.equal(await page.eval("document.querySelector('#style-panel [data-field=fill][data-color=teal]').getAttribute('aria-pressed')"), 'true', 'the picker shows it');
  const again = await newShape(page, 200, 560);
  assert.equal(hexOfFill(again.shape.fill), palette.teal);
  assert.equal(again.shape.strokeWidth, 5);
  await page.eval("localStorage.removeItem('snapboard.style')");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('while ann edits a shape\'s text, ben sees who and cannot open its editor; ann\'s open editor keeps the lease past 5 s; her end frees it', async () => {
  const w = await watcher('content-lease');
  const ann = await board('content-lease', 'ann');
  const ben = await board('content-lease', 'ben');
  const s = await snapped(ann, 400, 300);
  await ben.waitFor('ben has the shape', `snapboard.client.replica.shapes.has('${s.id}')`);
  const annSession = await ann.eval('snapboard.client.replica.session');
  const sent = ann.sent.length;
  await doubleClick(ann, s.x, s.y);
  await ann.waitFor('ann\'s editor open', `snapboard.editor.editing === '${s.id}'`);
  await ben.waitFor('ben sees ann\'s lease', `snapboard.client.replica.leases['${s.id}'] === ${annSession}`, patient);

  await recordHints(ben);
  await doubleClick(ben, s.x, s.y);
  await ben.eval(`snapboard.actions.select('${s.id}')`);
  await ben.key('Enter');
  await ben.waitFor('ben told who is editing', 'hints.some((h) => /ann is editing that shape/.test(h))');
  assert.equal(await editorOpen(ben), false, 'ben\'s editor did not open');
  assert.equal(textOps(ben, 0).length, 0, 'ben sent no text op');

  // Ann types nothing for longer than the lease timeout: her editor keeps it with updates.
  await type(ann, 'Mine');
  await pause(6000);
  assert.equal(await ben.eval(`snapboard.client.replica.leases['${s.id}']`), annSession, 'still ann\'s after 6 s');
  const updates = textOps(ann, sent).filter((m) => m.phase === 'update');
  assert.ok(updates.length >= 3, `an update at least every ${keepAliveMs} ms: ${updates.length}`);
  assert.ok(updates.every((m) => m.text === 'Mine'));
  assert.deepEqual(w.committed().filter((d) => d.ops?.some((id) => ann.sent.some((m) => m.id === id && m.op === 'text'))), [], 'drafts commit nothing');

  await ann.key('Enter', { modifiers: ['ctrl'] });
  await ben.waitFor('the lease gone', `snapboard.client.replica.leases['${s.id}'] === undefined`, patient);
  await ben.waitFor('ben has the text', `snapboard.client.replica.shapes.get('${s.id}')?.text === 'Mine'`, patient);
  await doubleClick(ben, s.x, s.y);
  await ben.waitFor('now ben\'s editor opens', `snapboard.editor.editing === '${s.id}'`);
  await ben.key('Escape');
  await ben.waitFor('closed', 'snapboard.editor.editing === null');
  assert.deepEqual([...ann.errors, ...ben.errors], []);
  await ann.close();
  await ben.close();
});

test('Escape in the editor puts the text back and commits nothing; the server answers the end unchanged', async () => {
  const w = await watcher('content-escape');
  const page = await board('content-escape', 'ann');
  const s = await snapped(page, 400, 300);
  const set = await page.eval(`snapboard.client.text('${s.id}', 'keep')`);
  await until('the text set', () => watched(w).get(s.id)?.text === 'keep', patient);
  await settled(page);
  await page.eval("window.acks = []; snapboard.client.on('ack', (a) => acks.push(a))");
  const sent = page.sent.length;
  await commitsNothing(page, w, async () => {
    await doubleClick(page, s.x, s.y);
    await page.waitFor('the editor open', `snapboard.editor.editing === '${s.id}'`);
    await page.eval("document.querySelector('textarea.text-editor').select()");
    await type(page, 'thrown away');
    await pause(500);
    await page.key('Escape');
    await page.waitFor('closed', 'snapboard.editor.editing === null');
    await settled(page);
  });
  const sentText = textOps(page, sent);
  assert.deepEqual(sentText.at(-1), { op: 'text', shape: s.id, phase: 'end', text: 'keep' }, 'the end carries the original text');
  const end = ops(page.sent.slice(sent)).find((m) => m.op === 'text' && m.phase === 'end');
  const ack = await page.eval(`acks.find((a) => a.id === '${end.id}')`);
  assert.equal(ack?.unchanged, true, `the end is acked unchanged: ${JSON.stringify(ack)}`);
  assert.equal(watched(w).get(s.id).text, 'keep');
  assert.equal(await page.eval(`snapboard.client.replica.shapes.get('${s.id}').text`), 'keep');
  assert.ok(set);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a viewer gets no Text, Note or Style tools, and Enter and a double-click open no editor', async () => {
  const editor = await board('content-viewer', 'ann');
  const s = await snapped(editor, 400, 300);
  const viewer = await board('content-viewer', 'vic', { query: '&role=viewer' });
  await viewer.waitFor('the shape', `snapboard.client.replica.shapes.has('${s.id}')`);
  for (const selector of ['#kinds [data-kind="text"]', '#kinds [data-kind="note"]', '#style-menu']) assert.equal(await isShown(viewer, selector), false, `${selector} hidden`);
  await doubleClick(viewer, s.x, s.y);
  await viewer.eval(`snapboard.actions.select('${s.id}')`);
  await viewer.key('Enter');
  assert.equal(await editorOpen(viewer), false);
  assert.equal(textOps(viewer, 0).length, 0);
  assert.deepEqual(viewer.errors, []);
  await viewer.close();
  await editor.close();
});

test('on a phone the Text and Note tools fold with the shape tools, the Style picker into one button, and the toolbar stays one row', async () => {
  const page = await board('content-phone', 'ann', { width: 390, height: 844, touch: true });
  const layout = await page.eval(`(() => {
    const t = document.getElementById('toolbar');
    const tops = [...t.querySelectorAll('button')].filter((b) => b.getClientRects().length).map((b) => Math.round(b.getBoundingClientRect().top));
    return { rows: new Set(tops).size, fits: t.scrollWidth <= t.clientWidth, height: t.getBoundingClientRect().height };
  })()`);
  assert.deepEqual({ rows: layout.rows, fits: layout.fits }, { rows: 1, fits: true }, `one row, all in view: ${JSON.stringify(layout)}`);
  assert.ok(await isShown(page, '#style-menu'));
  assert.equal(await isShown(page, '#style-panel'), false, 'folded');
  const r = await page.eval("(() => { const b = document.getElementById('style-menu').getBoundingClientRect(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; })()");
  await page.touch('touchStart', [{ x: r.x, y: r.y, id: 1 }]);
  await page.touch('touchEnd', []);
  await page.waitFor('the panel open', "document.getElementById('style-menu').getAttribute('aria-expanded') === 'true'");
  const box = await page.eval("(() => { const b = document.getElementById('style-panel').getBoundingClientRect(); return { left: b.left, right: b.right, bottom: b.bottom }; })()");
  assert.ok(box.left >= 0 && box.right <= 390 && box.bottom <= 844, `the panel lies on the screen: ${JSON.stringify(box)}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});
