// What the page tests share: recording a page's outgoing frames, waiting for its ops to be answered,
// reading what a watcher saw committed, snapping a shape from the page, and dragging the mouse.
import { until } from './support.mjs';

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
