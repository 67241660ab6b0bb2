// The whiteboard page in Debian's real Chromium (headless, over CDP) against a real snapboard-server.
// Screenshots of each run go to .build/web-artifacts/.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { launchBrowser } from './browser.mjs';
import { get, root, startServer, until } from './support.mjs';

const artifacts = `${root}.build/web-artifacts`;
mkdirSync(artifacts, { recursive: true });
const save = (name, shot) => writeFileSync(`${artifacts}/${name}.png`, shot.png);

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

async function board(s, canvas, name, options) {
  const page = await browser.newPage(options);
  await page.goto(`${s.http}/c/${canvas}?name=${name}`);
  await page.waitFor(`${name} connected`, "window.snapboard?.client.state === 'connected'");
  return page;
}

const settled = (page) => page.waitFor('every op answered', 'snapboard.client.pending.ops.length === 0');
const shapesOf = async (canvas) => (await get(server, `/v1/canvases/${canvas}`)).body.shapes;

/** True when a pixel within one pixel of (x, y) is the guide colour (#e0249a, antialiased). */
function guideAt(shot, x, y) {
  for (let dx = -1; dx <= 1; dx++) {
    for (let dy = -1; dy <= 1; dy++) {
      const [r, g, b] = shot.pixel(x + dx, y + dy);
      if (r > 170 && g < 110 && b > 100 && r - g > 100) return true;
    }
  }
  return false;
}

/** Checks the pixels along every guide the page's replica holds; returns how many points were checked. */
async function checkGuidePixels(page, shot) {
  const guides = await page.eval('snapboard.client.replica.guides');
  assert.ok(guides.length > 0);
  let checked = 0;
  for (const g of guides) {
    for (const t of [0.2, 0.4, 0.6, 0.8]) {
      const along = g.from + (g.to - g.from) * t;
      const p = await page.screenOf(g.axis === 'x' ? g.at : along, g.axis === 'x' ? along : g.at);
      assert.ok(guideAt(shot, p.x, p.y), `guide ${g.axis}=${g.at} drawn at (${p.x.toFixed(1)}, ${p.y.toFixed(1)})`);
      checked += 1;
    }
  }
  return checked;
}

test('a click in one page snaps a shape at the exact grid point, and the other page draws it', async () => {
  const ann = await board(server, 'web-two', 'ann'), ben = await board(server, 'web-two', 'ben');
  const at = await ann.screenOf(200, 203);
  await ann.click(at.x, at.y);
  await settled(ann);
  const [shape] = await shapesOf('web-two');
  assert.deepEqual([shape.x, shape.y, shape.kind], [192, 192, 'roundedRect'], 'the nearest intersection of the 32-unit grid');
  await ben.waitFor('ben has the shape', `snapboard.client.replica.shapes.has('${shape.id}')`);
  await new Promise((r) => setTimeout(r, 100));
  const shot = await ben.screenshot();
  save('two-pages-ben', shot);
  const p = await ben.screenOf(192, 192);
  const [r, g, b] = shot.pixel(p.x, p.y);
  assert.ok(Math.min(r, g, b) < 235, `ben's page shows the shape's fill at its centre, got ${[r, g, b]}`);
  assert.deepEqual([ann.errors, ben.errors], [[], []]);
  await ann.close();
  await ben.close();
});

test('a drag next to another shape shows the guide in both pages, and commits where the server says', async () => {
  const ann = await board(server, 'web-drag', 'ann'), ben = await board(server, 'web-drag', 'ben');
  for (const [x, y] of [[192, 192], [480, 192]]) {
    const p = await ann.screenOf(x, y);
    await ann.click(p.x, p.y);
  }
  await settled(ann);
  const shapes = await shapesOf('web-drag');
  const moving = shapes.find((s) => s.x === 480);
  // Its left edge (x - 60) to 2 units right of the other's right edge (252): an edge snap holds there.
  const from = await ann.screenOf(480, 192), to = await ann.screenOf(314, 192);
  for (const page of [ann, ben]) await page.eval("window.felt = []; snapboard.client.on('haptic', (h) => felt.push(h))");
  await ann.drag(from.x, from.y, to.x, to.y, { release: false });
  await ann.waitFor('a guide in ann', 'snapboard.client.replica.guides.length > 0');
  await ben.waitFor('a guide in ben', 'snapboard.client.replica.guides.length > 0');
  await new Promise((r) => setTimeout(r, 100));
  const annShot = await ann.screenshot(), benShot = await ben.screenshot();
  save('drag-guide-ann', annShot);
  save('drag-guide-ben', benShot);
  assert.ok(await checkGuidePixels(ann, annShot) >= 4);
  assert.ok(await checkGuidePixels(ben, benShot) >= 4);
  assert.ok((await ann.eval('felt.length')) >= 1, 'the dragger felt the snap engage');
  assert.equal(await ben.eval('felt.length'), 0, 'haptics are for the dragger alone (P9)');
  // Ben sees ann's lease: the moving shape outlined in her colour (its right edge, where no guide is).
  const annSession = await ann.eval('snapboard.client.replica.session');
  const annColor = await ben.eval(`snapboard.client.replica.sessions.get(${annSession}).color`);
  const want = [1, 3, 5].map((i) => parseInt(annColor.slice(i, i + 2), 16));
  const live = await ben.eval(`snapboard.client.replica.shapes.get('${moving.id}')`);
  const edge = await ben.screenOf(live.x + 60, live.y);
  const outlined = [-2, -1, 0, 1, 2].some((dx) => benShot.pixel(edge.x + dx, edge.y).slice(0, 3).every((v, i) => Math.abs(v - want[i]) < 40));
  assert.ok(outlined, `the leased shape is outlined in ann's colour ${annColor}`);
  await ann.mouse('mouseReleased', to.x, to.y);
  await settled(ann);
  await ben.waitFor('guides cleared in ben', 'snapboard.client.replica.guides.length === 0');
  const committed = (await shapesOf('web-drag')).find((s) => s.id === moving.id);
  for (const page of [ann, ben]) {
    const local = await page.eval(`snapboard.client.replica.shapes.get('${moving.id}')`);
    assert.deepEqual([local.x, local.y], [committed.x, committed.y]);
  }
  assert.ok(Math.abs(committed.x - 314) <= 6 && committed.x !== 314, `snapped near where it was dropped: ${committed.x}`);
  await ann.close();
  await ben.close();
});

test('two fingers on a shape pinch and turn it about the point between them (CDP touch, phone size)', async () => {
  const phone = await board(server, 'web-pinch', 'pat', { width: 390, height: 844, touch: true, deviceScaleFactor: 2 });
  const c = await phone.screenOf(512, 384);
  await phone.touch('touchStart', [{ x: c.x, y: c.y, id: 1 }]);
  await phone.touch('touchEnd', []);
  await settled(phone);
  const [before] = await shapesOf('web-pinch');
  assert.deepEqual([before.x, before.y, before.scale, before.rotation], [512, 384, 1, 0]);
  // Fingers 20 px apart, their midpoint off the shape's centre; then apart to 36 px and turned by 40°.
  const mid = { x: Math.round(c.x) - 6, y: Math.round(c.y) - 4 };
  const anchor = await phone.eval(`(() => { const r = document.getElementById('board').getBoundingClientRect();
    return snapboard.view.toCanvas({ x: ${mid.x} - r.left, y: ${mid.y} - r.top }); })()`);
  const fingers = (radius, angle) => [
    { x: mid.x - radius * Math.cos(angle), y: mid.y - radius * Math.sin(angle), id: 1 },
    { x: mid.x + radius * Math.cos(angle), y: mid.y + radius * Math.sin(angle), id: 2 },
  ];
  const [f1] = fingers(10, 0);
  await phone.touch('touchStart', [f1]);
  await phone.touch('touchStart', fingers(10, 0));
  const turn = (40 * Math.PI) / 180;
  for (let i = 1; i <= 10; i++) {
    await phone.touch('touchMove', fingers(10 + (8 * i) / 10, (turn * i) / 10));
    await new Promise((r) => setTimeout(r, 25));
  }
  await phone.touch('touchEnd', []);
  await settled(phone);
  const shot = await phone.screenshot();
  save('pinch-phone', shot);
  const [after] = await shapesOf('web-pinch');
  assert.ok(Math.abs(after.scale - 1.8) < 0.02, `scale ${after.scale}`);
  assert.ok(Math.abs(after.rotation - turn) < 0.02, `rotation ${after.rotation}`);
  // The canvas point under the fingers' midpoint stayed under it: same local point before and after.
  const local = (s, p) => {
    const dx = p.x - s.x, dy = p.y - s.y, cs = Math.cos(-s.rotation), sn = Math.sin(-s.rotation);
    return { x: (cs * dx - sn * dy) / s.scale, y: (sn * dx + cs * dy) / s.scale };
  };
  const l0 = local(before, anchor), l1 = local(after, anchor);
  assert.ok(Math.hypot(l0.x - l1.x, l0.y - l1.y) < 1.5, `the anchor moved in the shape's frame: ${JSON.stringify([l0, l1])}`);
  const width = await phone.eval('document.documentElement.scrollWidth');
  assert.ok(width <= 390, `no horizontal overflow at phone size: ${width}`);
  assert.deepEqual(phone.errors, []);
  await phone.close();
});

test("one page sees the other's live cursor in that person's colour", async () => {
  const ann = await board(server, 'web-cursor', 'ann'), ben = await board(server, 'web-cursor', 'ben');
  const p = await ann.screenOf(700, 500);
  await ann.mouse('mouseMoved', p.x, p.y, { buttons: 0, button: 'none' });
  const session = await ann.eval('snapboard.client.replica.session');
  await ben.waitFor("ann's cursor", `Math.abs((snapboard.client.replica.cursors.get(${session})?.x ?? -99) - 700) < 1`);
  await new Promise((r) => setTimeout(r, 100));
  const color = await ben.eval(`snapboard.client.replica.sessions.get(${session}).color`);
  const shot = await ben.screenshot();
  save('cursor-ben', shot);
  const q = await ben.screenOf(700, 500);
  const want = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
  const got = shot.pixel(q.x + 5, q.y + 8);
  assert.ok(want.every((v, i) => Math.abs(v - got[i]) < 40), `cursor pixel ${got} is ann's colour ${color}`);
  const names = await ben.eval("[...document.querySelectorAll('#sessions li')].map((li) => li.textContent)");
  assert.deepEqual(names.sort(), ['ann', 'ben (you)']);
  await ann.close();
  await ben.close();
});

test('the server killed and restarted: the page shows offline, reconnects, and nothing acked is lost', async () => {
  const own = await startServer();
  servers.push(own);
  const page = await board(own, 'web-restart', 'ann');
  const a = await page.screenOf(192, 192);
  await page.click(a.x, a.y);
  await settled(page);
  await own.kill();
  const offlineBanner = "document.querySelector('#banners [data-key=\"offline\"]')";
  await page.waitFor('the offline banner', `${offlineBanner}?.textContent.startsWith('Offline') && snapboard.client.state === 'offline'`);
  save('offline', await page.screenshot());
  const b = await page.screenOf(480, 480);
  await page.click(b.x, b.y);
  assert.equal(await page.eval('snapboard.client.pending.ops.length'), 1, 'the offline snap waits');
  const again = await startServer({ port: own.port, data: own.dataPath });
  servers.push(again);
  await page.waitFor('reconnected', "snapboard.client.state === 'connected'", 20000);
  await settled(page);
  assert.equal(await page.eval(offlineBanner), null, 'the offline banner is gone once connected');
  const { body } = await get(again, '/v1/canvases/web-restart');
  assert.deepEqual(body.shapes.map((s) => [s.x, s.y]).sort(), [[192, 192], [480, 480]]);
  await page.close();
});

test('a 500-shape canvas draws each frame in under 50 ms', async (t) => {
  const page = await board(server, 'web-500', 'ann');
  await page.eval(`(() => { const kinds = ['dot', 'roundedRect', 'oval', 'triangle', 'polygon', 'star', 'fractal'];
    for (let i = 0; i < 500; i++) snapboard.client.snap(16 + (i % 31) * 32, 16 + Math.floor(i / 31) * 40,
      { kind: kinds[i % 7], w: 60, h: 60, hatch: i % 3 === 0 ? 'crossHatch' : 'none' }); })()`);
  await page.waitFor('500 shapes', 'snapboard.client.replica.shapes.size === 500', 30000);
  const times = await page.eval(`(async () => {
    snapboard.frameTimes.length = 0;
    for (let i = 0; i < 30; i++) {
      snapboard.view.pan(1, 0);
      snapboard.invalidate();
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    }
    return [...snapboard.frameTimes];
  })()`);
  save('canvas-500', await page.screenshot());
  times.sort((x, y) => x - y);
  const median = times[Math.floor(times.length / 2)], worst = times.at(-1);
  t.diagnostic(`500 shapes: ${times.length} frames, median ${median.toFixed(1)} ms, worst ${worst.toFixed(1)} ms per draw`);
  assert.ok(times.length >= 20);
  assert.ok(median < 50, `median draw ${median} ms`);
  await page.close();
});

test('keys act on the selection as in the terminal client: r turns it 15°, + scales it, an arrow moves it one grid step', async () => {
  const page = await board(server, 'web-keys', 'kim');
  const p = await page.screenOf(320, 320);
  await page.click(p.x, p.y);
  await settled(page);
  await page.click(p.x, p.y);  // a click on the shape selects it
  await settled(page);
  const key = async (key, code) => {
    await page.call('Input.dispatchKeyEvent', { type: 'keyDown', key, code, text: key.length === 1 ? key : undefined });
    await page.call('Input.dispatchKeyEvent', { type: 'keyUp', key, code });
    await settled(page);
  };
  await key('r', 'KeyR');
  await key('+', 'Equal');
  await key('ArrowRight', 'ArrowRight');
  const [shape] = await shapesOf('web-keys');
  assert.ok(Math.abs(shape.rotation - Math.PI / 12) < 1e-9, `rotation ${shape.rotation}`);
  assert.equal(shape.scale, 1.25);
  assert.deepEqual([shape.x, shape.y], [352, 320], 'exactly one 32-unit grid step right, and not down');
  await page.close();
});

test('Delete deletes the selection, Ctrl+Z undoes your own change and Ctrl+Shift+Z redoes it', async () => {
  const page = await board(server, 'web-undo', 'uma');
  const p = await page.screenOf(320, 320);
  await page.click(p.x, p.y);
  await settled(page);
  await page.click(p.x, p.y);  // selects it
  await settled(page);
  // CDP modifiers: 2 is Ctrl, 8 is Shift.
  const key = async (key, code, modifiers = 0) => {
    await page.call('Input.dispatchKeyEvent', { type: 'keyDown', key, code, modifiers });
    await page.call('Input.dispatchKeyEvent', { type: 'keyUp', key, code, modifiers });
    await settled(page);
  };
  await key('Delete', 'Delete');
  assert.equal((await shapesOf('web-undo')).length, 0, 'Delete removed the selected shape');
  await page.waitFor('the page dropped it', 'snapboard.client.replica.shapes.size === 0');
  await key('z', 'KeyZ', 2);
  assert.equal((await shapesOf('web-undo')).length, 1, 'Ctrl+Z brought it back');
  await page.waitFor('the page has it again', 'snapboard.client.replica.shapes.size === 1');
  await key('Z', 'KeyZ', 2 | 8);
  assert.equal((await shapesOf('web-undo')).length, 0, 'Ctrl+Shift+Z deleted it again');
  assert.deepEqual(page.errors, []);
  await page.close();
});
