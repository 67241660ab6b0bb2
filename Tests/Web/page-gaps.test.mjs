// The whiteboard in Debian's real Chromium (over CDP) against real snapboard-servers, for what the other
// page tests left open: cursors after a server restart, undo after an import, a full layout, the edge of a
// bounded canvas, a closed tab, the ⌘ keys and Backspace, the share dialog's editor link, a rotation that
// snaps, and a tap made offline. Each page's outgoing WebSocket frames are recorded over CDP, and a second
// client watches the wire (support.mjs `watch`), so each test proves what was and was not committed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { bounds, cssColor } from '../../Sources/SnapboardWeb/lib/index.js';
import { launchBrowser } from './browser.mjs';
import { get, send, serverBinary, startServer, until, watch } from './support.mjs';
import * as shared from './page-support.mjs';
import { committedSince, dragThrough, ops, recordSent, shapesOf } from './page-support.mjs';

const secret = 'a-page-gaps-test-secret-of-32-bytes-or-more';
const adminToken = 'a-page-gaps-admin-token-of-32-characters-or-more';
/** An access token signed with `secret`, as `snapboard-server token` prints it. */
const mint = (canvas, { role = 'editor', ttl = '1h', sub = 'dev' } = {}) => execFileSync(serverBinary,
  ['token', '--canvas', canvas, '--role', role, '--ttl', String(ttl), '--sub', sub, '--secret', secret]).toString().trim();

let browser, server, nowhere;
const servers = [];
const watchers = [];
before(async () => {
  browser = await launchBrowser();
  server = await startServer();
  servers.push(server);
  // A port nothing listens on: a held page's sockets go there and are refused at once.
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  nowhere = `ws://127.0.0.1:${probe.address().port}/`;
  await new Promise((resolve) => probe.close(resolve));
});
after(async () => {
  for (const w of watchers) w.close();
  await browser?.close();
  for (const s of servers) await s.stop();
});

/** A watcher that the `after` hook closes whatever happens. */
async function watcher(s, canvas, options) {
  const w = await watch(s, canvas, options);
  watchers.push(w);
  return w;
}

/**
 * A page at `url` whose outgoing frames are recorded (`page.sent`, parsed, in order), and whose sockets
 * can be held: while `window.holdSockets` is true, each new socket goes to a port that refuses it, so the
 * page stays offline (and keeps trying) until the test lets it go.
 */
async function pageAt(url, options) {
  const page = await browser.newPage(options);
  await recordSent(browser, page);
  await page.call('Page.addScriptToEvaluateOnNewDocument', { source: `
    window.holdSockets = false;
    const Native = window.WebSocket;
    window.WebSocket = class extends Native { constructor(url, protocols) { super(window.holdSockets ? ${JSON.stringify(nowhere)} : url, protocols); } };` });
  await page.goto(url);
  return page;
}

/** A board page on `canvas` as `name` (with a token when given), once connected. */
async function board(s, canvas, name, { token, ...options } = {}) {
  const page = await pageAt(`${s.http}/c/${canvas}?name=${name}${token ? `&token=${token}` : ''}`, options);
  // Generous: the machine's two cores are shared with compilers and other suites.
  try {
    await page.waitFor(`${name} connected`, "window.snapboard?.client.state === 'connected'", 45000);
  } catch (error) {
    // What the page got to, for the report: its scripts may not have loaded, or the client may be stuck.
    const seen = await page.eval(`JSON.stringify({ state: window.snapboard?.client.state, problem: window.snapboard?.client.problem,
      status: document.getElementById('status')?.textContent, scripts: performance.getEntriesByType('resource').length })`).catch((e) => String(e));
    throw new Error(`${error.message}: ${seen}; errors ${JSON.stringify(page.errors)}`);
  }
  return page;
}

/** How long to wait for the server's answer: the machine's cores are shared, and a wait for state costs nothing when it comes sooner. */
const patient = 30000;
const settled = (page) => shared.settled(page, patient);
const frame = (page) => page.eval('snapboard.invalidate(); new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
const bannerText = (page, key) => page.eval(`document.querySelector('#banners [data-key="${key}"]')?.textContent ?? null`);
const isShown = (page, selector) => page.eval(`(() => { const e = document.querySelector('${selector}'); return !!e && e.getClientRects().length > 0; })()`);
const clickOn = (page, selector) => page.eval(`document.querySelector('${selector}').click()`);
const snapped = (page, x, y, kind) => shared.snapped(page, x, y, kind, patient);

const commitsBeforeMarker = (page, w, seen, marker) => shared.commitsBeforeMarker(page, w, seen, { marker, timeout: patient });

/**
 * Records the refusals (reject and error) the page's client gets in `window.refusals`, each with what the
 * status line said then (`hint`): the page's own listener, registered first, has said it, and the hint
 * goes after a few seconds.
 */
const recordRefusals = (page) => page.eval(`window.refusals = [];
  const record = (m) => refusals.push({ code: m.code, hint: document.getElementById('hint').textContent });
  snapboard.client.on('reject', record); snapboard.client.on('error', record);`);

/**
 * Waits until the view fits the board as it is now: a banner that comes or goes resizes the board, and
 * the page fits the canvas to it in the next frame; a point computed in between would be off.
 */
const boardFitted = (page) => page.waitFor('the board fitted to its size', `(() => { const r = document.getElementById('board').getBoundingClientRect();
  return snapboard.ui.width === r.width && snapboard.ui.height === r.height; })()`);

const rgbOf = (color) => [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));

/**
 * The names of the people (as the page's replica lists them) whose colour the page draws where a cursor
 * at canvas point `at` would be filled (the arrow's inside, 5 px right and 8 px down of its tip).
 */
async function cursorsDrawnAt(page, at) {
  await boardFitted(page);
  await frame(page);
  const p = await page.screenOf(at.x, at.y);
  const shot = await page.screenshot();
  const pixel = shot.pixel(p.x + 5, p.y + 8);
  const sessions = await page.eval('[...snapboard.client.replica.sessions.values()]');
  return sessions.filter((who) => rgbOf(who.color).every((v, i) => Math.abs(v - pixel[i]) < 40)).map((who) => who.name);
}

test('after a server restart no cursor of the old sessions is drawn, and no one\'s own cursor is drawn as someone else\'s', async () => {
  const own = await startServer();
  servers.push(own);
  const [ann, ben, cy] = [await board(own, 'gaps-cursors', 'ann'), await board(own, 'gaps-cursors', 'ben'), await board(own, 'gaps-cursors', 'cy')];
  const pages = { ann, ben, cy };
  // A commit, so that the canvas is stored and the restarted server resumes every page.
  await ann.eval("snapboard.client.snap(900, 100, { kind: 'dot' })");
  await settled(ann);
  const where = { ann: { x: 300, y: 600 }, ben: { x: 200, y: 300 }, cy: { x: 600, y: 400 } };
  for (const [name, page] of Object.entries(pages)) {
    await boardFitted(page);
    const p = await page.screenOf(where[name].x, where[name].y);
    await page.mouse('mouseMoved', p.x, p.y, { buttons: 0, button: 'none' });
  }
  for (const [name, page] of Object.entries(pages)) {
    await page.waitFor(`${name} sees the two other cursors`, 'snapboard.client.replica.cursors.size === 2', patient);
  }
  assert.deepEqual(await cursorsDrawnAt(ann, where.ben), ['ben'], "ben's cursor is drawn in ann's page");
  assert.deepEqual(await cursorsDrawnAt(ann, where.cy), ['cy']);
  assert.deepEqual(await ann.eval('[...snapboard.client.replica.sessions.values()].map((s) => s.name)'), ['ann', 'ben', 'cy'], 'sessions 1, 2 and 3');

  // The server restarts; ben and cy come back first (sessions 1 and 2), ann last (3, cy's old id).
  await ann.eval('window.holdSockets = true');
  await own.kill();
  for (const [name, page] of Object.entries(pages)) await page.waitFor(`${name} offline`, "snapboard.client.state === 'offline'", patient);
  const again = await startServer({ port: own.port, data: own.dataPath });
  servers.push(again);
  for (const [name, page] of [['ben', ben], ['cy', cy]]) {
    await page.waitFor(`${name} back with the other`, "snapboard.client.state === 'connected' && snapboard.client.replica.sessions.size === 2", patient);
  }
  await ann.eval('window.holdSockets = false');
  await ann.waitFor('ann back', "snapboard.client.state === 'connected' && snapboard.client.replica.sessions.size === 3", patient);
  assert.equal(await ann.eval('snapboard.client.replica.sessions.get(snapboard.client.replica.session).name'), 'ann');

  for (const [name, page] of Object.entries(pages)) {
    for (const [owner, at] of Object.entries(where)) {
      assert.deepEqual(await cursorsDrawnAt(page, at), [], `${name}'s page draws no cursor where ${owner}'s was`);
    }
    assert.deepEqual(await page.eval('[...snapboard.client.replica.cursors]'), [], `${name}'s page keeps no cursor of the old sessions`);
  }
  // Cursors come again as people move, each in its owner's colour; ann's own is drawn in the others' pages only.
  const fresh = { x: 450, y: 250 };
  await boardFitted(ann);
  const p = await ann.screenOf(fresh.x, fresh.y);
  await ann.mouse('mouseMoved', p.x, p.y, { buttons: 0, button: 'none' });
  for (const [name, page] of [['ben', ben], ['cy', cy]]) {
    await page.waitFor(`ann's new cursor in ${name}'s page`, 'snapboard.client.replica.cursors.size === 1', patient);
    assert.equal(await page.eval('snapboard.client.replica.sessions.get([...snapboard.client.replica.cursors.keys()][0]).name'), 'ann');
    assert.deepEqual(await cursorsDrawnAt(page, fresh), ['ann'], `ann's cursor in ${name}'s page, in her colour`);
  }
  assert.deepEqual(await cursorsDrawnAt(ann, fresh), [], "ann's page never draws her own pointer");
  for (const page of Object.values(pages)) {
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('an undo right after an import replaced the canvas commits nothing: it is refused, and the banner said so', async () => {
  const page = await board(server, 'gaps-import-undo', 'ann');
  const shape = await snapped(page, 320, 320);
  const exported = (await get(server, '/v1/canvases/gaps-import-undo/export')).body;
  assert.equal((await send(server, 'PUT', '/v1/canvases/gaps-import-undo', exported)).status, 200);
  await page.waitFor('the banner', "!!document.querySelector('#banners [data-key=\"replaced\"]')");
  assert.match(await bannerText(page, 'replaced'), /your earlier changes can no longer be undone/);
  await page.waitFor('connected to the import', "snapboard.client.state === 'connected'");
  const w = await watcher(server, 'gaps-import-undo');
  await recordRefusals(page);
  const seen = w.messages.length, sent = page.sent.length;
  await page.key('z', { modifiers: ['ctrl'] });
  await page.waitFor('the refusal', 'refusals.length === 1', patient);
  const [refusal] = await page.eval('refusals');
  assert.equal(refusal.code, 'nothing_to_undo');
  assert.match(refusal.hint, /Nothing of yours left to undo/, 'told in words');
  assert.deepEqual(ops(page.sent.slice(sent)).map((m) => m.op), ['undo'], 'one undo went');
  assert.deepEqual(await commitsBeforeMarker(page, w, seen), [], 'nothing committed');
  assert.deepEqual((await shapesOf(page)).find((s) => s.id === shape.id), shape, 'the imported shape stays');
  assert.ok((await get(server, '/v1/canvases/gaps-import-undo')).body.shapes.some((s) => s.id === shape.id));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a tap on a full layout grid says on the page that the grid is full, and commits nothing', async () => {
  const created = await send(server, 'POST', '/v1/canvases', { id: 'gaps-layout-full', layout: { mode: 'flexible', rows: 1, columns: 2, padding: 32 } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const page = await board(server, 'gaps-layout-full', 'lay');
  const layout = await page.eval('snapboard.client.replica.layout');
  const cell = (c) => ({ x: layout.padding + c * (layout.cellWidth + layout.padding) + layout.cellWidth / 2, y: layout.padding + layout.cellHeight / 2 });
  const a = await snapped(page, cell(0).x, cell(0).y), b = await snapped(page, cell(1).x, cell(1).y);
  assert.ok(a && b, 'both cells taken');
  const w = await watcher(server, 'gaps-layout-full');
  await recordRefusals(page);
  const seen = w.messages.length, sent = page.sent.length;
  // The top of the first cell, above its (square, fitted) shape: empty space.
  const at = await page.screenOf(layout.padding + 8, layout.padding + 8);
  await page.click(at.x, at.y);
  await page.waitFor('the refusal', 'refusals.length === 1', patient);
  const [refusal] = await page.eval('refusals');
  assert.equal(refusal.code, 'layout_full');
  assert.match(refusal.hint, /Every cell of the grid is taken/, 'the page says the grid is full');
  assert.deepEqual(ops(page.sent.slice(sent)).map((m) => m.op), ['snap']);
  assert.equal((await shapesOf(page)).length, 2, 'no third shape drawn');
  // The marker deletes a shape: a snap would be refused too.
  assert.deepEqual(await commitsBeforeMarker(page, w, seen, `snapboard.client.delete(['${a.id}'])`), [], 'the tap committed nothing');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a shape on a bounded canvas dragged past its edge stays inside it', async () => {
  const page = await board(server, 'gaps-bounded', 'bo');
  const w = await watcher(server, 'gaps-bounded');
  const shape = await snapped(page, 896, 384);
  // Zoomed out, so that the board shows room beyond the canvas's right edge.
  await page.eval('snapboard.actions.zoomOut(); snapboard.actions.zoomOut()');
  const { width, height, bounded } = await page.eval('({ width: snapboard.client.replica.width, height: snapboard.client.replica.height, bounded: snapboard.client.replica.bounded })');
  assert.equal(bounded, true);
  const from = await page.screenOf(shape.x, shape.y), edge = await page.screenOf(width, shape.y);
  const viewport = await page.eval('innerWidth');
  const to = { x: Math.min(viewport - 10, edge.x + 200), y: from.y + 40 };
  assert.ok(to.x > edge.x + 100, 'the pointer ends well past the edge');
  const seen = w.messages.length;
  await dragThrough(page, [from, ...[1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ x: from.x + ((to.x - from.x) * i) / 8, y: from.y + ((to.y - from.y) * i) / 8 }))]);
  await settled(page);
  const commits = committedSince(w, seen);
  assert.equal(commits.length, 1, 'one move committed');
  const moved = commits[0].shapes.find((s) => s.id === shape.id);
  const b = bounds(moved);
  assert.ok(moved.x > shape.x, `it moved right: ${shape.x} → ${moved.x}`);
  assert.ok(b.minX >= 0 && b.minY >= 0 && b.maxX <= width + 1e-9 && b.maxY <= height + 1e-9, `inside the canvas: ${JSON.stringify(b)}`);
  assert.ok(Math.abs(b.maxX - width) < 1e-9, 'against the right edge');
  assert.deepEqual((await shapesOf(page)).find((s) => s.id === shape.id), moved, 'drawn as committed');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a closed tab leaves the other page\'s people list within 5 s', async () => {
  const ann = await board(server, 'gaps-close', 'ann');
  const ben = await board(server, 'gaps-close', 'ben');
  const listed = (name) => `[...document.querySelectorAll('#sessions li[data-session]')].some((li) => li.textContent === '${name}')`;
  await ann.waitFor('ben listed', listed('ben'));
  const closed = Date.now();
  await ben.close();  // Target.closeTarget: the tab closes, as a person closes it
  await ann.waitFor('ben gone', `!${listed('ben')}`, 5000);
  assert.ok(Date.now() - closed < 5000, `${Date.now() - closed} ms`);
  assert.deepEqual(ann.errors, []);
  await ann.close();
});

test('⌘+A selects every shape, Backspace deletes them in one op, ⌘+Z undoes and ⌘+Shift+Z redoes', async () => {
  const page = await board(server, 'gaps-meta', 'mac');
  const w = await watcher(server, 'gaps-meta');
  const made = [await snapped(page, 192, 192, 'oval'), await snapped(page, 448, 192, 'star')];
  const ids = made.map((s) => s.id).sort();
  const count = async () => (await shapesOf(page)).length;
  await page.key('a', { modifiers: ['meta'] });
  assert.deepEqual(await page.eval('[...snapboard.ui.selection].sort()'), ids);
  let seen = w.messages.length;
  await page.key('Backspace');
  await settled(page);
  let commits = committedSince(w, seen);
  assert.equal(commits.length, 1, 'one delete op');
  assert.deepEqual([...commits[0].removed].sort(), ids);
  assert.equal(await count(), 0);
  seen = w.messages.length;
  await page.key('z', { modifiers: ['meta'] });
  await settled(page);
  assert.equal(await count(), 2, '⌘+Z brought both back');
  await page.key('z', { modifiers: ['meta', 'shift'] });
  await settled(page);
  assert.equal(await count(), 0, '⌘+Shift+Z deleted them again');
  commits = await commitsBeforeMarker(page, w, seen);
  assert.equal(commits.length, 2, 'the undo and the redo, one op each');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the share dialog\'s editor link, minted on a server with a token secret, opens the canvas as an editor', async () => {
  const keyed = await startServer({ args: ['--auth-secret', secret, '--admin-token', adminToken] });
  servers.push(keyed);
  const page = await board(keyed, 'gaps-share', 'ann', { token: mint('gaps-share', { sub: 'ann' }) });
  await clickOn(page, '#share-button');
  await page.waitFor('the mint buttons', "!document.getElementById('share-mint').hidden", patient);
  await clickOn(page, '#mint-editor');
  const link = await page.waitFor('the minted link', "document.getElementById('minted-editor')?.value", patient);
  assert.match(link, new RegExp(`^${keyed.http}/c/gaps-share\\?token=`));
  await page.close();

  const w = await watcher(keyed, 'gaps-share', { token: mint('gaps-share', { role: 'viewer', sub: 'watcher' }) });
  const editor = await pageAt(`${link}&name=eve`);
  await editor.waitFor('the editor connected', "window.snapboard?.client.state === 'connected' && snapboard.client.role === 'editor'", 45000);
  assert.ok(await isShown(editor, '#kinds'), 'the shape tools');
  assert.ok(!(await isShown(editor, '#view-only')), 'no "View only" mark');
  const at = await editor.screenOf(320, 320);
  await editor.click(at.x, at.y);
  await until('the tap committed', () => w.committed().length === 1, patient);
  assert.deepEqual(editor.errors, []);
  await editor.close();
});

test('the rotation knob let go near a quarter turn (88°) commits exactly 90°: the server snaps the angle', async () => {
  const page = await board(server, 'gaps-knob', 'rot');
  const w = await watcher(server, 'gaps-knob');
  const shape = await snapped(page, 512, 384);
  const c = await page.screenOf(shape.x, shape.y);
  await page.click(c.x, c.y);
  const knob = await page.eval(`(async () => {
    const { handlesOf } = await import('/web/page/selection.js');
    const r = document.getElementById('board').getBoundingClientRect();
    const k = handlesOf(snapboard.client.replica.shapes.get('${shape.id}'), snapboard.view).knob;
    return { x: k.x + r.left, y: k.y + r.top };
  })()`);
  const radius = c.y - knob.y;
  const end = (88 * Math.PI) / 180;
  const seen = w.messages.length, sent = page.sent.length;
  await dragThrough(page, [knob, ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((i) => {
    const a = -Math.PI / 2 + end * (i / 12);
    return { x: c.x + radius * Math.cos(a), y: c.y + radius * Math.sin(a) };
  })]);
  await settled(page);
  const rotates = ops(page.sent.slice(sent));
  assert.deepEqual([...new Set(rotates.map((m) => m.op))], ['rotate']);
  const raw = rotates.filter((m) => typeof m.radians === 'number').at(-1).radians;
  assert.ok(Math.abs(raw - Math.PI / 2) > Math.PI / 180, `the page sent the angle as dragged (${(raw * 180) / Math.PI}°), not a snapped one`);
  const commits = committedSince(w, seen);
  assert.equal(commits.length, 1, 'one op');
  assert.equal(commits[0].shapes[0].rotation, Math.PI / 2, 'snapped to exactly 90°');
  assert.equal((await shapesOf(page)).find((s) => s.id === shape.id).rotation, Math.PI / 2);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('offline, a tap draws its shape at once; back online it commits once, and the shape drawn is the server\'s', async () => {
  const own = await startServer();
  servers.push(own);
  const page = await board(own, 'gaps-offline', 'off');
  await page.eval('snapboard.client.snap(100, 100, { kind: "dot" })');
  await settled(page);
  await page.eval('window.holdSockets = true');
  await own.kill();
  await page.waitFor('offline', "snapboard.client.state === 'offline'");
  // The offline banner takes room from the board, which then fits the canvas again: tap once that is done.
  await page.waitFor('the banner', "!!document.querySelector('#banners [data-key=\"offline\"]')");
  await boardFitted(page);
  const at = await page.screenOf(512, 384);
  await page.click(at.x, at.y);
  // Drawn at once: the predicted shape is in what the board draws, and on the screen, before any server answers.
  const drawn = await page.eval('snapboard.client.drawingOrder()');
  assert.equal(drawn.length, 2, 'the tap is drawn at once');
  const predicted = drawn.at(-1);
  assert.deepEqual([predicted.x, predicted.y], [512, 384], 'at the grid point the server will pick');
  await frame(page);
  const p = await page.screenOf(predicted.x, predicted.y);
  const grey = cssColor(predicted.fill).match(/\d+/g).slice(0, 3).map(Number);
  const pixel = (await page.screenshot()).pixel(p.x, p.y);
  assert.ok(grey.every((v, i) => Math.abs(v - pixel[i]) < 30), `the predicted shape is on the screen: ${pixel}`);

  const again = await startServer({ port: own.port, data: own.dataPath });
  servers.push(again);
  const w = await watcher(again, 'gaps-offline');
  const seen = w.messages.length;
  await page.eval('window.holdSockets = false');
  await page.waitFor('connected again', "snapboard.client.state === 'connected'", patient);
  await settled(page);
  const commits = await commitsBeforeMarker(page, w, seen);
  assert.equal(commits.length, 1, `the offline tap committed once: ${JSON.stringify(commits)}`);
  const committed = commits[0].shapes[0];
  assert.equal(committed.id, predicted.id, 'under the id the page drew it with');
  assert.equal(await page.eval('snapboard.client.offlineEdits.size'), 0, 'no prediction left');
  assert.deepEqual(await page.eval(`snapboard.client.shapeAsDrawn('${committed.id}')`), committed, "the shape drawn is the server's");
  assert.deepEqual(page.errors, []);
  await page.close();
});
