// The README's three pictures of the page, made from a real board in Debian's Chromium: a desktop window
// (1280×800), a phone (390×844, touch) and a viewer's page. Always written to .build/web-artifacts/; with
// SNAPBOARD_SCREENSHOTS=1 (`make screenshots`) also to docs/images/ (desktop.png, phone.png, viewer.png).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { SnapboardClient } from '../../Sources/SnapboardWeb/lib/index.js';
import { launchBrowser } from './browser.mjs';
import { root, serverBinary, startServer, until } from './support.mjs';

const artifacts = `${root}.build/web-artifacts`;
const images = `${root}docs/images`;
mkdirSync(artifacts, { recursive: true });
const publish = process.env.SNAPBOARD_SCREENSHOTS === '1';

const secret = 'a-screenshot-secret-of-32-bytes-or-more!';
const canvas = 'team-retro';
const mint = (role, sub, name) => execFileSync(serverBinary,
  ['token', '--canvas', canvas, '--role', role, '--ttl', '1h', '--sub', sub, '--name', name, '--secret', secret]).toString().trim();

/** A few shapes of every kind, coloured, as a team might leave them. */
const shapes = [
  [160, 160, { kind: 'roundedRect', w: 160, h: 96, fill: { h: 0.6, s: 0.45, b: 0.98, a: 0.9 } }],
  [384, 160, { kind: 'oval', w: 128, h: 96, fill: { h: 0.12, s: 0.55, b: 1, a: 0.9 } }],
  [576, 192, { kind: 'star', w: 128, h: 128, points: 5, inner: 0.45, fill: { h: 0.14, s: 0.8, b: 1, a: 0.95 } }],
  [800, 160, { kind: 'triangle', w: 128, h: 112, fill: { h: 0.36, s: 0.45, b: 0.9, a: 0.9 } }],
  [224, 448, { kind: 'polygon', w: 128, h: 128, sides: 6, fill: { h: 0.78, s: 0.35, b: 0.95, a: 0.9 }, hatch: 'hatch' }],
  [480, 448, { kind: 'fractal', w: 160, h: 160, depth: 3, fill: { h: 0.95, s: 0.45, b: 0.98, a: 0.9 } }],
  [736, 448, { kind: 'roundedRect', w: 192, h: 128, fill: { h: 0.52, s: 0.4, b: 0.95, a: 0.9 }, hatch: 'crossHatch' }],
  [608, 640, { kind: 'dot', w: 24, h: 24, fill: { h: 0, s: 0.7, b: 0.9, a: 1 } }],
];

let browser, server;
const clients = [];
before(async () => {
  browser = await launchBrowser();
  server = await startServer({ args: ['--auth-secret', secret] });
  const ben = new SnapboardClient({ url: server.ws(canvas), name: 'Ben', token: mint('editor', 'ben', 'Ben'), pingInterval: 0 });
  clients.push(ben);
  ben.connect();
  await until('Ben connected', () => ben.state === 'connected');
  for (const [x, y, shape] of shapes) ben.snap(x, y, shape);
  await until('the shapes committed', () => ben.pending.ops.length === 0 && ben.replica.shapes.size === shapes.length);
});
after(async () => {
  for (const c of clients) c.close();
  await browser?.close();
  await server?.stop();
});

/** The page as `name` with `token`, connected, with everyone listed and every frame drawn; then its picture. */
async function picture(file, { role = 'editor', name, options, prepare }) {
  const page = await browser.newPage(options);
  await page.goto(`${server.http}/c/${canvas}?name=${name}&token=${mint(role, name.toLowerCase(), name)}`);
  await page.waitFor(`${name} connected`, `window.snapboard?.client.state === 'connected' && snapboard.client.replica.shapes.size === ${shapes.length}`);
  await page.waitFor('everyone listed', "document.querySelectorAll('#sessions li[data-session]').length >= 2");
  // Ben points at the board: his cursor, in his colour, on every picture.
  clients[0].cursor(700 + Math.random(), 330);
  await page.waitFor("Ben's cursor", 'snapboard.client.replica.cursors.size === 1');
  if (prepare) await page.eval(prepare);
  await page.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  assert.deepEqual(page.errors, []);
  const shot = await page.screenshot();
  writeFileSync(`${artifacts}/${file}`, shot.png);
  if (publish) {
    mkdirSync(images, { recursive: true });
    writeFileSync(`${images}/${file}`, shot.png);
  }
  await page.close();
  return shot;
}

test('desktop: the board, its toolbar, the people and a selection', async () => {
  const shot = await picture('desktop.png', {
    name: 'Ann',
    options: { width: 1280, height: 800 },
    prepare: "snapboard.ui.selection.add([...snapboard.client.replica.shapes.values()].find((s) => s.kind === 'star').id); snapboard.invalidate()",
  });
  assert.deepEqual([shot.width, shot.height], [1280, 800]);
});

test('phone: one compact toolbar row above a board that fills the screen', async () => {
  const shot = await picture('phone.png', { name: 'Cleo', options: { width: 390, height: 844, touch: true } });
  assert.deepEqual([shot.width, shot.height], [390, 844]);
});

test('viewer: no editing tools, and the "View only" mark', async () => {
  const shot = await picture('viewer.png', {
    role: 'viewer', name: 'Dana', options: { width: 1280, height: 800 },
    prepare: "if (document.getElementById('view-only').hidden) throw new Error('no View only mark')",
  });
  assert.deepEqual([shot.width, shot.height], [1280, 800]);
});
