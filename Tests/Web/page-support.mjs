// What the page tests share: a file's Chromium and server with its board pages and watchers, recording a
// page's outgoing frames, waiting for its ops to be answered, reading what a watcher saw committed,
// snapping a shape from the page, and dragging the mouse.
import { after, before } from 'node:test';
import { launchBrowser } from './browser.mjs';
import { startServer, until, watch } from './support.mjs';

/**
 * Chromium and a real server, started before the calling file's tests and stopped after them, with the
 * watchers it opened; `ready(browser, server)` hands both to the file once started. `board(canvas, name,
 * options)` opens a page on `canvas` whose outgoing frames are recorded (`page.sent`), once connected;
 * `watcher(canvas)` a second client on the wire; `settled` and `snapped` wait `patient` ms at most, since
 * the machine's cores are shared.
 */
export function pageSuite(ready = () => {}, { patient = 30000 } = {}) {
  let browser, server;
  const watchers = [];
  before(async () => {
    browser = await launchBrowser();
    server = await startServer();
    ready(browser, server);
  });
  after(async () => {
    for (const w of watchers) w.close();
    await browser?.close();
    await server?.stop();
  });
  return {
    patient,
    settled: (page) => settled(page, patient),
    snapped: (page, x, y, kind) => snapped(page, x, y, kind, patient),
    async watcher(canvas) {
      const w = await watch(server, canvas);
      watchers.push(w);
      return w;
    },
    async board(canvas, name, { query = '', ...options } = {}) {
      const page = await browser.newPage(options);
      await recordSent(browser, page);
      await page.goto(`${server.http}/c/${canvas}?name=${name}${query}`);
      await page.waitFor(`${name} connected`, "window.snapboard?.client.state === 'connected'", 45000);
      return page;
    },
  };
}

/** Records every message `page` writes to its sockets in `page.sent`, parsed, in order (CDP Network events). */
export async function recordSent(browser, page) {
  page.sent = [];
  browser.listeners.push((m) => {
    if (m.sessionId !== page.sessionId || m.method !== 'Network.webSocketFrameSent') return;
    try { page.sent.push(JSON.parse(m.params.response.payloadData)); } catch { page.sent.push({ unreadable: m.params.response.payloadData }); }
  });
  await page.call('Network.enable');
}

/** Waits until every op the page's client sent has been answered (`timeout` in ms). */
export const settled = (page, timeout) => page.waitFor('every op answered', 'snapboard.client.pending.ops.length === 0', timeout);
export const ops = (messages) => messages.filter((m) => m.type === 'op');
export const shapesOf = (page) => page.eval('snapboard.client.drawingOrder()');
/** The committed deltas the watcher got after index `from` of its messages. */
export const committedSince = (watcher, from) => watcher.messages.slice(from).filter((m) => m.type === 'delta' && !m.live);

/** Snaps a `kind` shape at (x, y) from the page's client and returns it as committed. */
export async function snapped(page, x, y, kind = 'roundedRect', timeout) {
  const known = new Set((await shapesOf(page)).map((s) => s.id));
  await page.eval(`snapboard.client.snap(${x}, ${y}, { kind: '${kind}' })`);
  await settled(page, timeout);
  return (await shapesOf(page)).find((s) => !known.has(s.id));
}

/**
 * Sends a marker op from the page (`marker`, an expression that returns its op id: a dot snapped far off
 * unless given) and waits until the watcher sees it committed; returns the committed deltas the watcher
 * got after index `seen`, the marker's left out. Ops from one socket are ordered, so anything the page
 * committed before the marker has been seen by then.
 */
export async function commitsBeforeMarker(page, watcher, seen, { marker = "snapboard.client.snap(1000, 740, { kind: 'dot' })", timeout } = {}) {
  const id = await page.eval(marker);
  await until('the marker committed', () => watcher.messages.slice(seen).some((m) => m.type === 'delta' && m.ops?.includes(id)), timeout);
  await settled(page, timeout);
  return committedSince(watcher, seen).filter((d) => !d.ops?.includes(id));
}

/** A mouse drag through `points` (page coordinates), a frame apart, released at the last. */
export async function dragThrough(page, points) {
  const [first, ...rest] = points;
  await page.mouse('mouseMoved', first.x, first.y, { buttons: 0, button: 'none' });
  await page.mouse('mousePressed', first.x, first.y);
  for (const p of rest) {
    await page.mouse('mouseMoved', p.x, p.y);
    await new Promise((r) => setTimeout(r, 20));
  }
  const last = points.at(-1);
  await page.mouse('mouseReleased', last.x, last.y);
}
