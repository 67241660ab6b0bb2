// The whiteboard page's chrome in Debian's real Chromium (over CDP) against real snapboard-servers: every
// state told in words, viewers, tokens in the address, the name prompt, presence, the share dialog, the
// history panel, the start page and the phone layout. A second client on the wire (support.mjs `watch`)
// proves what a page did and did not commit. Screenshots of the states shown go to .build/web-artifacts/chrome-*.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { author, describe } from '../../Sources/SnapboardWeb/page/history.js';
import { keyHelp } from '../../Sources/SnapboardWeb/page/keyboard.js';
import { refusals } from '../../Sources/SnapboardWeb/page/status.js';
import { launchBrowser } from './browser.mjs';
import { get, root, send, serverBinary, startServer, until, watch } from './support.mjs';

const artifacts = `${root}.build/web-artifacts`;
mkdirSync(artifacts, { recursive: true });
const save = async (name, page) => writeFileSync(`${artifacts}/chrome-${name}.png`, (await page.screenshot()).png);

const secret = 'a-page-chrome-test-secret-of-32-bytes-or-more';
const adminToken = 'a-page-chrome-admin-token-of-32-characters-or-more';
/** An access token signed with `secret`, as `snapboard-server token` prints it. */
const mint = (canvas, { role = 'editor', ttl = '1h', sub = 'dev', name } = {}) => execFileSync(serverBinary,
  ['token', '--canvas', canvas, '--role', role, '--ttl', String(ttl), '--sub', sub, '--secret', secret, ...(name ? ['--name', name] : [])]).toString().trim();

let browser, open, keyed;
const servers = [];
const watchers = [];
before(async () => {
  browser = await launchBrowser();
  open = await startServer();
  keyed = await startServer({ args: ['--auth-secret', secret, '--admin-token', adminToken] });
  servers.push(open, keyed);
});
after(async () => {
  for (const w of watchers) w.close();
  await browser?.close();
  for (const s of servers) await s.stop();
});

/** A watcher that the `after` hook closes whatever happens. */
async function watcher(server, canvas, options) {
  const w = await watch(server, canvas, options);
  watchers.push(w);
  return w;
}

/** A page on `path` that counts the WebSockets it opens (window.socketsOpened). */
async function pageAt(server, path, options) {
  const page = await browser.newPage(options);
  await page.call('Page.addScriptToEvaluateOnNewDocument', { source: `
    window.socketsOpened = 0;
    const Native = window.WebSocket;
    window.WebSocket = class extends Native { constructor(...args) { super(...args); window.socketsOpened += 1; } };` });
  await page.goto(`${server.http}${path}`);
  return page;
}

/** A page on /c/{canvas} as `name` (with a token in the address when given), once connected. */
async function board(server, canvas, name, { token, options } = {}) {
  const page = await pageAt(server, `/c/${canvas}?name=${name}${token ? `&token=${token}` : ''}`, options);
  await page.waitFor(`${name} connected`, "window.snapboard?.client.state === 'connected'");
  return page;
}

const bannerText = (page, key) => page.eval(`document.querySelector('#banners [data-key="${key}"]')?.textContent ?? null`);
const isShown = (page, selector) => page.eval(`(() => { const e = document.querySelector('${selector}'); return !!e && e.getClientRects().length > 0; })()`);
const settle = (ms) => new Promise((r) => setTimeout(r, ms));
const clickOn = (page, selector) => page.eval(`document.querySelector('${selector}').click()`);

test('every reject and error code the protocol lists has a sentence, and none shows a raw code', () => {
  const enumOf = (file) => JSON.parse(readFileSync(`${root}Protocol/schema/${file}`, 'utf8')).properties.code.enum;
  const codes = new Set([...enumOf('reject.json'), ...enumOf('error.json'), 'layout_full', 'nothing_to_undo', 'nothing_to_redo', 'shape_locked', 'forbidden', 'canvas_full', 'out_of_range']);
  for (const code of codes) {
    assert.ok(refusals[code], `a sentence for ${code}`);
    assert.ok(!refusals[code].includes(code) && !refusals[code].includes('_'), `${code}'s sentence is words, not the code`);
  }
});

test('history entries read as who did what, in words', () => {
  const placement = (x, scale, rotation) => ({ id: 's1', center: { x, y: 96 }, size: { width: 24, height: 24 }, scale, rotation, z: 0 });
  const entries = {
    1: { seq: 1, client: 'c:abc', name: 'Ann', op: { type: 'create', shape: { id: 's1', kind: 'oval' } } },
    2: { seq: 2, client: 'c:abc', name: 'Ann', op: { type: 'place', before: placement(96, 1, 0), placement: placement(140, 1, 0) } },
    3: { seq: 3, client: 'c:abc', name: 'Ann', op: { type: 'place', before: placement(140, 1, 0), placement: placement(140, 2, 0.5) } },
    4: { seq: 4, client: 'c:abc', name: null, undoes: 3, op: { type: 'place', before: placement(140, 2, 0.5), placement: placement(140, 1, 0) } },
    5: { seq: 5, client: null, name: null, op: { type: 'remove', shapes: [{ id: 's1', kind: 'oval' }, { id: 's2', kind: 'star' }] } },
    6: { seq: 6, client: 'c:abc', name: 'Ann', op: { type: 'clear', shapes: [{ id: 's3' }] } },
    7: { seq: 7, client: 'c:abc', name: 'Ann', undoes: 99, op: { type: 'restore', shapes: [{ id: 's3' }] } },
  };
  const kindOf = (id) => (id === 's1' ? 'oval' : undefined);
  const said = Object.values(entries).map((e) => `${author(e)} ${describe(e, kindOf, (seq) => entries[seq])}`);
  assert.deepEqual(said, [
    'Ann added an oval',
    'Ann moved an oval',
    'Ann resized and turned an oval',
    'Someone undid: resized and turned an oval',
    'The server deleted 2 shapes',
    'Ann cleared the canvas (one shape)',
    'Ann undid a change (brought back one shape)',
  ]);
});

test('a missing, malformed, expired or wrong-canvas token is told in words, and reconnecting stops', async () => {
  const expiring = mint('keyed-a', { ttl: 1 });
  const cases = [
    ['missing', '', /needs an access token/],
    ['malformed', 'not-a-token', /damaged/],
    ['expired', expiring, /expired/],
    ['wrong canvas', mint('keyed-other'), /another canvas/],
  ];
  await settle(1500);  // the 1-second token has expired
  for (const [what, token, words] of cases) {
    const page = await pageAt(keyed, `/c/keyed-a?name=ann${token ? `&token=${token}` : ''}`);
    await page.waitFor(`the ${what} token's banner`, "!!document.querySelector('#banners [data-key=\"access\"]')");
    const text = await bannerText(page, 'access');
    assert.match(text, words, `${what}: ${text}`);
    assert.doesNotMatch(text, /reconnecting|_/, `${what}: words, not a code or an endless reconnect`);
    assert.ok(await isShown(page, '#banners .token-form input'), `${what}: a field to paste a new link`);
    assert.ok(['unauthorized', 'expired'].includes(await page.eval('snapboard.client.state')), what);
    const opened = await page.eval('window.socketsOpened');
    await settle(2500);  // longer than the backoff's first delays
    assert.equal(await page.eval('window.socketsOpened'), opened, `${what}: no reconnect`);
    assert.ok(!(await isShown(page, '#kinds')), `${what}: no editing tools`);
    await save(`token-${what.replace(' ', '-')}`, page);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('a token that expires during the session makes the board read-only, and a new link pasted reconnects', async () => {
  const wire = await watcher(keyed, 'keyed-b', { token: mint('keyed-b', { sub: 'watcher' }) });
  const page = await board(keyed, 'keyed-b', 'ann', { token: mint('keyed-b', { ttl: 6, sub: 'ann' }) });
  assert.ok(await isShown(page, '#kinds'), 'an editor has the shape tools');
  await page.waitFor('the expired state', "snapboard.client.state === 'expired'", 15000);
  await page.waitFor('the banner', "!!document.querySelector('#banners [data-key=\"access\"]')");
  assert.match(await bannerText(page, 'access'), /read-only/);
  assert.ok(!(await isShown(page, '#kinds')) && !(await isShown(page, '#edits')), 'no editing tools while read-only');
  assert.equal(await page.eval("document.getElementById('view-only').textContent"), 'Read-only');
  const before = wire.committed().length;
  const at = await page.screenOf(300, 300);
  await page.click(at.x, at.y);
  await settle(500);
  assert.equal(wire.committed().length, before, 'a tap while read-only commits nothing');
  await save('token-expired-during', page);

  const fresh = mint('keyed-b', { sub: 'ann' });
  await page.eval(`(() => { const f = document.querySelector('#banners .token-form');
    f.querySelector('input').value = ${JSON.stringify(`${keyed.http}/c/keyed-b?token=${fresh}`)}; f.querySelector('button').click(); })()`);
  await page.waitFor('connected again', "snapboard.client.state === 'connected'");
  await page.waitFor('the banner gone', "!document.querySelector('#banners [data-key=\"access\"]')");
  assert.ok(await isShown(page, '#kinds'), 'the tools are back');
  assert.equal(await page.eval(`sessionStorage.getItem('snapboard.token:keyed-b')`), fresh, 'the new token is kept for a reload');
  await page.click(at.x, at.y);
  await until('the tap committed', () => wire.committed().length === before + 1);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a viewer gets no editing tools and a "View only" mark, and its taps commit nothing', async () => {
  const wire = await watcher(keyed, 'keyed-c', { token: mint('keyed-c', { sub: 'watcher' }) });
  const page = await board(keyed, 'keyed-c', 'vic', { token: mint('keyed-c', { role: 'viewer', sub: 'vic' }) });
  await page.waitFor('the role', "snapboard.client.role === 'viewer'");
  assert.ok(await isShown(page, '#view-only'));
  assert.equal(await page.eval("document.getElementById('view-only').textContent"), 'View only');
  for (const tool of ['#kinds', '#edits', '#delete-button', '#undo-button', '#redo-button']) assert.ok(!(await isShown(page, tool)), `${tool} hidden`);
  for (const kept of ['#zoom-in', '#zoom-out', '#zoom-fit', '#share-button', '#history-button']) assert.ok(await isShown(page, kept), `${kept} shown`);
  const at = await page.screenOf(300, 300);
  await page.click(at.x, at.y);
  await page.key('z', { modifiers: ['ctrl'] });
  await settle(500);
  assert.equal(wire.committed().length, 0, 'nothing committed');
  assert.equal(await page.eval('snapboard.client.drawingOrder().length'), 0, 'nothing drawn as a local change');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a canvas deleted from outside is announced, and the page stops reconnecting', async () => {
  const page = await board(open, 'chrome-doomed', 'ann');
  assert.equal((await fetch(`${open.http}/v1/canvases/chrome-doomed`, { method: 'DELETE' })).status, 204);
  await page.waitFor('the deleted state', "snapboard.client.state === 'deleted'");
  await page.waitFor('the banner', "!!document.querySelector('#banners [data-key=\"access\"]')");
  assert.match(await bannerText(page, 'access'), /deleted/);
  assert.ok(await page.eval(`!!document.querySelector('#banners [data-key="access"] a[href="/"]')`), 'a link to the canvases');
  const opened = await page.eval('window.socketsOpened');
  await settle(1500);
  assert.equal(await page.eval('window.socketsOpened'), opened, 'no reconnect, which would make a new empty canvas');
  assert.equal((await get(open, '/v1/canvases/chrome-doomed')).status, 404);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a view-only link to a canvas that does not exist, and a server that stores no more canvases, are told in words', async () => {
  const viewer = await pageAt(keyed, `/c/keyed-none?name=vic&token=${mint('keyed-none', { role: 'viewer', sub: 'vic' })}`);
  await viewer.waitFor('the banner', "!!document.querySelector('#banners [data-key=\"access\"]')");
  assert.equal(await viewer.eval('snapboard.client.state'), 'not_found');
  assert.match(await bannerText(viewer, 'access'), /no canvas with this name, and a view-only link cannot create one/);
  assert.ok(await viewer.eval(`!!document.querySelector('#banners [data-key="access"] a[href="/"]')`));
  assert.equal((await get(keyed, '/v1/canvases/keyed-none', { Authorization: `Bearer ${adminToken}` })).status, 404, 'nothing created');
  await viewer.close();

  const full = await startServer({ args: ['--max-stored-canvases', '1'] });
  servers.push(full);
  assert.equal((await send(full, 'POST', '/v1/canvases', { id: 'only' })).status, 201);
  const page = await pageAt(full, '/c/one-more?name=ann');
  await page.waitFor('the banner', "!!document.querySelector('#banners [data-key=\"access\"]')");
  assert.equal(await page.eval('snapboard.client.state'), 'storage_full');
  assert.match(await bannerText(page, 'access'), /keeps as many canvases as it may/);
  const opened = await page.eval('window.socketsOpened');
  await settle(1500);
  assert.equal(await page.eval('window.socketsOpened'), opened, 'no reconnect');
  assert.deepEqual([viewer.errors, page.errors], [[], []]);
  await page.close();
});

test('a canvas replaced by an import is announced, and the selection is dropped', async () => {
  const page = await board(open, 'chrome-import', 'ann');
  await page.eval('snapboard.client.snap(200, 200)');
  await page.waitFor('the shape', 'snapboard.client.replica.shapes.size === 1 && snapboard.client.pending.ops.length === 0');
  const exported = (await get(open, '/v1/canvases/chrome-import/export')).body;
  await page.eval('snapboard.actions.selectAll()');
  assert.equal(await page.eval('snapboard.ui.selection.size'), 1);
  assert.equal((await send(open, 'PUT', '/v1/canvases/chrome-import', exported)).status, 200);
  await page.waitFor('the banner', "!!document.querySelector('#banners [data-key=\"replaced\"]')");
  assert.match(await bannerText(page, 'replaced'), /replaced by an import/);
  assert.equal(await page.eval('snapboard.ui.selection.size'), 0);
  await page.waitFor('connected to the import', "snapboard.client.state === 'connected'");
  await save('replaced', page);
  await clickOn(page, '#banners [data-key="replaced"] .dismiss');
  assert.equal(await bannerText(page, 'replaced'), null, 'dismissed');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('offline, the banner says edits wait, presence and rtt are stale; back online it goes and the edit commits', async () => {
  const own = await startServer();
  servers.push(own);
  const page = await board(own, 'chrome-offline', 'ann');
  const wire = await watcher(own, 'chrome-offline');
  await page.waitFor('the watcher listed', "document.querySelectorAll('#sessions li[data-session]').length === 2");
  await page.waitFor('a round trip', "/ms/.test(document.getElementById('rtt').textContent)");
  await own.kill();
  await page.waitFor('offline', "snapboard.client.state === 'offline'");
  await page.waitFor('the banner', "!!document.querySelector('#banners [data-key=\"offline\"]')");
  assert.equal(await bannerText(page, 'offline'), 'Offline: your edits will be sent when the connection is back.');
  assert.ok(await page.eval("document.getElementById('people').classList.contains('stale')"), 'presence marked stale');
  assert.match(await page.eval("document.getElementById('rtt').textContent"), /stale/);
  assert.ok(await page.eval('snapboard.client.stale'));
  await page.eval('snapboard.client.snap(320, 320)');
  await save('offline', page);

  const again = await startServer({ port: own.port, data: own.dataPath });
  servers.push(again);
  await page.waitFor('connected again', "snapboard.client.state === 'connected'", 20000);
  await page.waitFor('the banner gone', "!document.querySelector('#banners [data-key=\"offline\"]')");
  assert.ok(!(await page.eval("document.getElementById('people').classList.contains('stale')")));
  const after = await watcher(again, 'chrome-offline');
  await until('the offline edit committed', async () => (await get(again, '/v1/canvases/chrome-offline')).body.shapes?.length === 1);
  after.close();
  assert.deepEqual(page.errors, []);
  await page.close();
  wire.close();
});

test('a page that navigates away leaves everyone\'s presence within 5 s', async () => {
  const wire = await watcher(open, 'chrome-leave');
  const page = await board(open, 'chrome-leave', 'ann');
  await until('ann joined', () => wire.messages.some((m) => m.type === 'presence' && m.event === 'join' && m.name === 'ann'));
  const left = Date.now();
  await page.goto('about:blank');
  await until('ann left', () => wire.messages.some((m) => m.type === 'presence' && m.event === 'leave' && m.name === 'ann'), 5000);
  assert.ok(Date.now() - left < 5000);
  await page.close();
});

test('the first visit asks for a name and remembers it; ?name= skips the question', async () => {
  const wire = await watcher(open, 'chrome-name');
  const page = await browser.newPage();
  await page.goto(`${open.http}/`);
  await page.eval("localStorage.removeItem('snapboard.name')");
  await page.goto(`${open.http}/c/chrome-name`);
  await page.waitFor('the name dialog', "document.getElementById('name-dialog').open");
  assert.equal(await page.eval('window.snapboard'), undefined, 'not connected before the name');
  await save('name-prompt', page);
  await page.eval("document.getElementById('name-input').value = 'Grace'; document.querySelector('#name-form button').click()");
  await page.waitFor('connected', "window.snapboard?.client.state === 'connected'");
  await until('Grace joined', () => wire.messages.some((m) => m.type === 'presence' && m.event === 'join' && m.name === 'Grace'));
  assert.equal(await page.eval("localStorage.getItem('snapboard.name')"), 'Grace');

  await page.goto(`${open.http}/c/chrome-name`);
  await page.waitFor('connected', "window.snapboard?.client.state === 'connected'");
  assert.ok(!(await page.eval("document.getElementById('name-dialog').open")), 'not asked again');
  assert.equal(await page.eval('snapboard.client.name'), 'Grace');

  await page.goto(`${open.http}/c/chrome-name?name=Zed`);
  await page.waitFor('connected', "window.snapboard?.client.state === 'connected'");
  assert.ok(!(await page.eval("document.getElementById('name-dialog').open")));
  assert.equal(await page.eval('snapboard.client.name'), 'Zed');
  assert.equal(await page.eval("localStorage.getItem('snapboard.name')"), 'Grace', '?name= overrides without replacing');
  assert.deepEqual(page.errors, []);
  await page.eval("localStorage.removeItem('snapboard.name')");
  await page.close();
});

test('a token that carries a name skips the name question', async () => {
  const page = await browser.newPage();
  await page.goto(`${keyed.http}/`);
  await page.eval("localStorage.removeItem('snapboard.name')");
  await page.goto(`${keyed.http}/c/keyed-f?token=${mint('keyed-f', { sub: 'tess', name: 'Tess' })}`);
  await page.waitFor('connected', "window.snapboard?.client.state === 'connected'");
  assert.ok(!(await page.eval("document.getElementById('name-dialog').open")));
  assert.equal(await page.eval('snapboard.client.name'), 'Tess');
  assert.equal(await page.eval("localStorage.getItem('snapboard.name')"), null);
  await page.close();
});

test('twelve people on a canvas get twelve distinct colours in the people list', async () => {
  for (let i = 0; i < 11; i++) await watcher(open, 'chrome-colours', { name: `p${i}` });
  const page = await board(open, 'chrome-colours', 'ann');
  await page.waitFor('twelve people listed', "document.querySelectorAll('#sessions li[data-session]').length === 12");
  const colours = await page.eval("[...document.querySelectorAll('#sessions li[data-session]')].map((li) => li.dataset.color)");
  assert.equal(new Set(colours).size, 12, colours.join(' '));
  assert.ok(await page.eval("[...document.querySelectorAll('#sessions li')].some((li) => li.textContent === 'ann (you)')"));
  await save('colours', page);
  await page.close();
});

test('a token in the address moves to sessionStorage and out of the address bar, and a reload still works', async () => {
  const token = mint('keyed-d', { sub: 'ann' });
  const page = await board(keyed, 'keyed-d', 'ann', { token });
  assert.equal(await page.eval('location.search'), '?name=ann');
  assert.ok(!(await page.eval('location.href')).includes(token));
  assert.equal(await page.eval("sessionStorage.getItem('snapboard.token:keyed-d')"), token);
  await page.call('Page.reload');
  await page.waitFor('reloaded and connected', "document.readyState === 'complete' && window.snapboard?.client.state === 'connected'");
  assert.ok(!(await page.eval('location.href')).includes('token'));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the share dialog mints a view-only link, which opens a view-only page; without tokens it says none is needed', async () => {
  const page = await board(keyed, 'keyed-e', 'ann', { token: mint('keyed-e', { sub: 'ann' }) });
  await clickOn(page, '#share-button');
  await page.waitFor('the mint buttons', "!document.getElementById('share-mint').hidden");
  assert.equal(await page.eval("document.getElementById('share-link').value"), `${keyed.http}/c/keyed-e`);
  await clickOn(page, '#mint-viewer');
  const link = await page.waitFor('the minted link', "document.getElementById('minted-viewer')?.value");
  assert.match(link, new RegExp(`^${keyed.http}/c/keyed-e\\?token=`));
  await save('share-minted', page);

  const viewer = await browser.newPage();
  await viewer.goto(`${link}&name=vic`);
  await viewer.waitFor('the viewer connected', "window.snapboard?.client.state === 'connected' && snapboard.client.role === 'viewer'");
  assert.ok(await isShown(viewer, '#view-only'));
  assert.ok(!(await isShown(viewer, '#kinds')));
  await clickOn(viewer, '#share-button');
  await viewer.waitFor('the note', "/only lets you view/.test(document.getElementById('share-note').textContent)");
  assert.ok(await viewer.eval("document.getElementById('share-mint').hidden"), 'a viewer cannot mint');
  await viewer.close();
  await page.close();

  const plain = await board(open, 'chrome-share', 'ann');
  await clickOn(plain, '#share-button');
  await plain.waitFor('the note', "/needs no access tokens/.test(document.getElementById('share-note').textContent)");
  assert.ok(await plain.eval("document.getElementById('share-mint').hidden"));
  assert.deepEqual([plain.errors], [[]]);
  await plain.close();
});

test('the history panel names who did what, never client ids, and follows new commits', async () => {
  const ann = await board(open, 'chrome-history', 'ann');
  const ben = await board(open, 'chrome-history', 'ben');
  await ann.eval("snapboard.client.snap(200, 200, { kind: 'star' })");
  await ann.waitFor('answered', 'snapboard.client.pending.ops.length === 0');
  await clickOn(ben, '#history-button');
  await ben.waitFor('the entry', "document.querySelectorAll('#history-list li').length === 1");
  assert.match(await ben.eval("document.querySelector('#history-list li').textContent"), /^ann added a star/);
  await ann.eval('snapboard.client.undo()');
  await ben.waitFor('the undo listed', "document.querySelectorAll('#history-list li').length === 2");
  const text = await ben.eval("document.getElementById('history-list').textContent");
  assert.match(text, /ann undid: added a star/);
  assert.doesNotMatch(text, /c:|s:\d|[0-9a-f]{16}/, 'no client ids');
  await save('history', ben);
  await ann.close();
  await ben.close();
});

test('the start page lists the canvases of an open server, and only those a token covers', async () => {
  const own = await startServer();
  servers.push(own);
  for (const id of ['alpha', 'beta']) assert.equal((await send(own, 'POST', '/v1/canvases', { id })).status, 201);
  const page = await browser.newPage();
  await page.goto(`${own.http}/`);
  await page.waitFor('two canvases', "document.querySelectorAll('#canvases a').length === 2");
  assert.deepEqual(await page.eval("[...document.querySelectorAll('#canvases a')].map((a) => a.getAttribute('href'))"), ['/c/alpha', '/c/beta']);
  assert.match(await page.eval("document.querySelector('#canvases .meta').textContent"), /0 changes/);
  assert.ok(await page.eval("/^\\/c\\/board-/.test(document.getElementById('new-canvas').getAttribute('href'))"), 'a New canvas link');
  await save('start-open', page);
  await page.close();

  const admin = { Authorization: `Bearer ${adminToken}` };
  for (const id of ['team-a', 'team-b', 'other']) assert.equal((await send(keyed, 'POST', '/v1/canvases', { id }, admin)).status, 201);
  const refused = await browser.newPage();
  await refused.goto(`${keyed.http}/`);
  await refused.waitFor('the refusal', "/private/.test(document.getElementById('list-note').textContent)");
  await refused.close();
  const team = await browser.newPage();
  await team.goto(`${keyed.http}/?token=${mint('team-*', { sub: 'ann' })}`);
  await team.waitFor('the team canvases', "document.querySelectorAll('#canvases a').length === 2");
  assert.deepEqual(await team.eval("[...document.querySelectorAll('#canvases a')].map((a) => a.textContent)"), ['team-a', 'team-b']);
  assert.equal(await team.eval('location.search'), '', 'the token left the address');
  assert.deepEqual([team.errors], [[]]);
  await team.close();
});

test('a bad canvas name gets an HTML page that says what is wrong', async () => {
  const answer = await get(open, '/c/bad%20name');
  assert.equal(answer.status, 404);
  assert.match(answer.headers.get('content-type'), /^text\/html/);
  const page = await browser.newPage();
  await page.goto(`${open.http}/c/bad%20name`);
  const text = await page.waitFor('the page', "location.pathname === '/c/bad%20name' && document.body?.innerText");
  assert.match(text, /1–64 characters.*letter.*digit/s, 'the naming rule');
  assert.ok(await page.eval("!!document.querySelector('a[href=\"/\"]')"), 'a link to the start page');
  await page.close();
});

test('on a phone the board fills the viewport below one compact toolbar row', async () => {
  const page = await board(open, 'chrome-phone', 'ann', { options: { width: 390, height: 844, touch: true } });
  const layout = await page.eval(`(() => {
    const bar = document.getElementById('toolbar').getBoundingClientRect();
    const board = document.getElementById('board').getBoundingClientRect();
    const tops = [...document.querySelectorAll('#toolbar button')].filter((b) => b.getClientRects().length).map((b) => Math.round(b.getBoundingClientRect().top));
    return { barHeight: bar.height, barBottom: bar.bottom, boardTop: board.top, boardHeight: board.height, boardWidth: board.width, rows: new Set(tops).size };
  })()`);
  assert.equal(layout.rows, 1, 'one row of buttons');
  assert.ok(layout.barHeight <= 48, `a compact toolbar (${layout.barHeight}px)`);
  assert.equal(layout.boardTop, layout.barBottom, 'the board starts right below the toolbar');
  assert.ok(layout.boardHeight >= 0.85 * 844, `the board is ${layout.boardHeight}px of 844`);
  assert.equal(layout.boardWidth, 390);
  const names = await page.eval("[...document.querySelectorAll('#toolbar button')].map((b) => b.getAttribute('aria-label'))");
  for (const name of ['Delete', 'Undo', 'Redo', 'Zoom out', 'Zoom in', 'Zoom to fit', 'Share', 'History', 'Help', 'Star']) assert.ok(names.includes(name), name);
  assert.ok(names.every((n) => n), 'every button has an accessible name');
  assert.ok(await page.eval("(() => { const t = document.getElementById('toolbar'); return t.scrollWidth <= t.clientWidth; })()"), 'every button in view, none scrolled off');
  // The shape tools fold into the chosen one: a tap on it opens them, a tap on one picks it.
  assert.deepEqual(await page.eval("[...document.querySelectorAll('#kinds button')].filter((b) => b.getClientRects().length).map((b) => b.dataset.kind)"), [await page.eval('snapboard.toolbar.kind')]);
  const tap = async (selector) => {
    const r = await page.eval(`(() => { const b = document.querySelector('${selector}').getBoundingClientRect(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; })()`);
    await page.touch('touchStart', [{ x: r.x, y: r.y, id: 1 }]);
    await page.touch('touchEnd', []);
  };
  await tap('#kinds [aria-pressed="true"]');
  await page.waitFor('the shape tools open, Text and Note, Line and Arrow among them', "[...document.querySelectorAll('#kinds button')].filter((b) => b.getClientRects().length).length === 11");
  await save('phone-kinds', page);
  await tap('#kinds [data-kind="star"]');
  await page.waitFor('the star chosen, the tools folded', "snapboard.toolbar.kind === 'star' && [...document.querySelectorAll('#kinds button')].filter((b) => b.getClientRects().length).length === 1");
  assert.equal(await page.eval("localStorage.getItem('snapboard.kind')"), 'star');
  await page.eval("localStorage.removeItem('snapboard.kind')");
  await save('phone', page);
  await page.close();
});

test('the toolbar\'s buttons act: a shape tool, zoom, Delete and Undo, a refusal told in words', async () => {
  const wire = await watcher(open, 'chrome-tools');
  const page = await board(open, 'chrome-tools', 'ann');
  await clickOn(page, '#kinds [data-kind="triangle"]');
  const at = await page.screenOf(300, 300);
  await page.click(at.x, at.y);
  await until('the triangle', () => wire.committed().some((d) => d.shapes?.some((s) => s.kind === 'triangle')));
  const before = await page.eval("document.getElementById('zoom-percent').textContent");
  await clickOn(page, '#zoom-in');
  await page.waitFor('the zoom shown', `document.getElementById('zoom-percent').textContent !== ${JSON.stringify(before)}`);
  assert.equal(await page.eval("document.getElementById('zoom-percent').textContent"), `${await page.eval('snapboard.actions.zoomPercent')}%`);
  await clickOn(page, '#zoom-fit');
  await page.eval('snapboard.actions.selectAll()');
  await clickOn(page, '#delete-button');
  await until('the delete', () => wire.committed().some((d) => d.removed?.length === 1));
  await clickOn(page, '#undo-button');
  await until('the undo', () => wire.committed().length === 3);
  await clickOn(page, '#redo-button');
  await until('the redo', () => wire.committed().length === 4);
  await clickOn(page, '#redo-button');
  await page.waitFor('the refusal in words', "/Nothing to redo/.test(document.getElementById('hint').textContent)");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the help lists every key the board takes, Alt+arrow among them, and fits a phone', async () => {
  const page = await board(open, 'chrome-help', 'ann', { options: { width: 390, height: 844, touch: true } });
  await page.key('?');
  await page.waitFor('the help open', "document.getElementById('help').open");
  const rows = await page.eval("[...document.querySelectorAll('#key-help tbody tr')].map((r) => [r.querySelector('th').textContent, r.querySelector('td').textContent])");
  assert.deepEqual(rows, keyHelp.map(({ keys, does }) => [keys.join(' '), does]));
  assert.ok(rows.some(([keys, does]) => keys.includes('Alt+arrow') && /snap/.test(does)));
  const box = await page.eval("(() => { const r = document.getElementById('help').getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; })()");
  assert.ok(box.top >= 0 && box.bottom <= 844, `the help lies within the phone's screen: ${JSON.stringify(box)}`);
  await page.key('Escape');
  await page.waitFor('the help closed', "!document.getElementById('help').open");
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** Where to click on the element `selector`: its middle, in page coordinates. */
const middleOf = (page, selector) => page.eval(`(() => { const b = document.querySelector('${selector}').getBoundingClientRect(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; })()`);

test('a canvas replaced by an import and then deleted shows the deletion alone: the import\'s banner goes', async () => {
  const page = await board(open, 'chrome-import-gone', 'ann');
  await page.eval('snapboard.client.snap(200, 200)');
  await page.waitFor('the shape', 'snapboard.client.replica.shapes.size === 1 && snapboard.client.pending.ops.length === 0');
  const exported = (await get(open, '/v1/canvases/chrome-import-gone/export')).body;
  assert.equal((await send(open, 'PUT', '/v1/canvases/chrome-import-gone', exported)).status, 200);
  await page.waitFor('the replaced banner', "!!document.querySelector('#banners [data-key=\"replaced\"]')");
  await page.waitFor('connected to the import', "snapboard.client.state === 'connected'");
  assert.equal((await fetch(`${open.http}/v1/canvases/chrome-import-gone`, { method: 'DELETE' })).status, 204);
  await page.waitFor('the deleted banner', "snapboard.client.state === 'deleted' && !!document.querySelector('#banners [data-key=\"access\"]')");
  assert.match(await bannerText(page, 'access'), /deleted/);
  assert.equal(await bannerText(page, 'replaced'), null, 'the import is no longer told');
  assert.equal(await page.eval("document.querySelectorAll('#banners .banner').length"), 1, 'one banner');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('while the page has no access or the canvas is gone, History and Share are disabled and say why', async () => {
  const page = await pageAt(keyed, '/c/keyed-g?name=ann');
  await page.waitFor('the banner', "!!document.querySelector('#banners [data-key=\"access\"]')");
  for (const id of ['history-button', 'share-button']) {
    assert.ok(await page.eval(`document.getElementById('${id}').disabled`), `${id} disabled`);
    assert.match(await page.eval(`document.getElementById('${id}').title`), /not available while this page has no access/, `${id} says why`);
  }
  const at = await middleOf(page, '#history-button');
  await page.click(at.x, at.y);
  await settle(300);
  assert.ok(await page.eval("document.getElementById('history').hidden"), 'a click on History opens nothing');
  assert.equal(await page.eval("document.getElementById('history-note').textContent"), '', 'and asks nothing of the server');
  assert.deepEqual(page.errors, []);
  await page.close();

  // A canvas deleted while its history is open: the panel closes, and both buttons are disabled.
  const gone = await board(open, 'chrome-history-gone', 'ann');
  assert.ok(!(await gone.eval("document.getElementById('history-button').disabled")), 'History works while connected');
  await clickOn(gone, '#history-button');
  await gone.waitFor('the panel', "!document.getElementById('history').hidden");
  assert.equal((await fetch(`${open.http}/v1/canvases/chrome-history-gone`, { method: 'DELETE' })).status, 204);
  await gone.waitFor('the deleted state', "snapboard.client.state === 'deleted'");
  assert.ok(await gone.eval("document.getElementById('history').hidden"), 'the panel closed');
  assert.ok(await gone.eval("document.getElementById('history-button').disabled && document.getElementById('share-button').disabled"));
  assert.deepEqual(gone.errors, []);
  await gone.close();
});

test("New canvas makes a name the token can open: inside a prefix token's prefix; for a token of one canvas it is hidden, and the page says why", async () => {
  const admin = { Authorization: `Bearer ${adminToken}` };
  const team = await browser.newPage();
  await team.goto(`${keyed.http}/?token=${mint('crew-*', { sub: 'ann', name: 'Ann' })}`);
  await team.waitFor('the listing', "!/Loading/.test(document.getElementById('list-note').textContent)");
  const href = await team.eval("document.getElementById('new-canvas').getAttribute('href')");
  assert.match(href, /^\/c\/crew-[a-z0-9]{8}$/, href);
  assert.ok(await isShown(team, '#new-canvas'));
  await clickOn(team, '#new-canvas');
  await team.waitFor('the new canvas opened', `location.pathname === '${href}' && window.snapboard?.client.state === 'connected'`);
  assert.equal((await get(keyed, `/v1/canvases/${href.slice(3)}`, admin)).status, 200, 'the new canvas exists');
  assert.deepEqual(team.errors, []);
  await team.close();

  for (const [token, words] of [[mint('crew-a', { sub: 'ann' }), /only the canvas “crew-a”/], [mint('crew-*', { role: 'viewer', sub: 'vic' }), /only lets you view/]]) {
    const one = await browser.newPage();
    await one.goto(`${keyed.http}/?token=${token}`);
    await one.waitFor('the listing', "!/Loading/.test(document.getElementById('list-note').textContent)");
    assert.ok(!(await isShown(one, '#new-canvas')), 'no New canvas');
    assert.ok(await isShown(one, '#new-note'));
    assert.match(await one.eval("document.getElementById('new-note').textContent"), words);
    assert.deepEqual(one.errors, []);
    await one.close();
  }
});

test('a name of only invisible characters is no name: ?name= of them asks, and the dialog refuses one typed of them', async () => {
  const page = await browser.newPage();
  await page.goto(`${open.http}/`);
  await page.eval("localStorage.removeItem('snapboard.name')");
  // Zero-width space, left-to-right mark, word joiner, byte-order mark, right-to-left override, a control character.
  const hidden = '\u200B\u200E\u2060\uFEFF\u202E\u0007 ';
  await page.goto(`${open.http}/c/chrome-invisible?name=${encodeURIComponent(hidden)}`);
  await page.waitFor('the name dialog', "document.getElementById('name-dialog').open");
  await page.eval(`document.getElementById('name-input').value = ${JSON.stringify(`\u2066${hidden}\u2069`)}; document.querySelector('#name-form button').click()`);
  await settle(200);
  assert.ok(await page.eval("document.getElementById('name-dialog').open"), 'still asked');
  assert.ok(await page.eval("document.getElementById('name-input').validity.customError"), 'the field says it is no name');
  assert.equal(await page.eval('window.snapboard'), undefined, 'not connected');
  await page.eval("const i = document.getElementById('name-input'); i.value = '\\u200BIvy\\u200F'; i.dispatchEvent(new Event('input')); document.querySelector('#name-form button').click()");
  await page.waitFor('connected', "window.snapboard?.client.state === 'connected'");
  assert.equal(await page.eval('snapboard.client.name'), 'Ivy');
  assert.equal(await page.eval("localStorage.getItem('snapboard.name')"), 'Ivy');
  assert.deepEqual(page.errors, []);
  await page.eval("localStorage.removeItem('snapboard.name')");
  await page.close();
});
