// Debian's real Chromium, headless, driven over the DevTools protocol (CDP) with Node's WebSocket:
// pages, mouse and touch input, JavaScript evaluation and PNG screenshots with their pixels.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';

const executable = process.env.CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'snapboard-chromium-'));
  // In its own process group, so that closing kills its helper processes too: left running, they went
  // on writing into the profile while it was removed (ENOTEMPTY), and the test file hung.
  const child = spawn(executable, [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--no-default-browser-check', '--hide-scrollbars', '--mute-audio', '--remote-debugging-port=0',
    // Two pages side by side must both draw and send: no throttling of pages that are not in front.
    '--disable-background-timer-throttling', '--disable-renderer-backgrounding', '--disable-backgrounding-occluded-windows',
    `--user-data-dir=${profile}`, 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const endpoint = await new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const found = text.match(/DevTools listening on (ws:\/\/\S+)/);
      if (found) resolve(found[1]);
    });
    child.on('exit', (code) => reject(new Error(`chromium exited with ${code}: ${text.slice(-2000)}`)));
  });
  const socket = new WebSocket(endpoint);
  await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = reject; });
  const browser = new Browser(socket, child, profile);
  socket.onmessage = (event) => browser.receive(JSON.parse(event.data));
  return browser;
}

class Browser {
  constructor(socket, child, profile) {
    this.socket = socket;
    this.child = child;
    this.profile = profile;
    this.next = 1;
    this.calls = new Map();
    this.listeners = [];
  }

  receive(message) {
    if (message.id && this.calls.has(message.id)) {
      const { resolve, reject, method } = this.calls.get(message.id);
      this.calls.delete(message.id);
      if (message.error) reject(new Error(`${method}: ${message.error.message}`)); else resolve(message.result);
      return;
    }
    for (const listener of this.listeners) listener(message);
  }

  /** One CDP call, on the browser or on a page's session. */
  call(method, params = {}, sessionId) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject, method });
      this.socket.send(JSON.stringify({ id, method, params, sessionId }));
    });
  }

  /** A new tab of `width` × `height` CSS pixels; `touch` makes it a phone (touch events, mobile viewport). */
  async newPage({ width = 1280, height = 800, touch = false, deviceScaleFactor = 1 } = {}) {
    const { targetId } = await this.call('Target.createTarget', { url: 'about:blank', newWindow: true });
    const { sessionId } = await this.call('Target.attachToTarget', { targetId, flatten: true });
    const page = new Page(this, sessionId, targetId);
    await page.call('Page.enable');
    await page.call('Runtime.enable');
    await page.call('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor, mobile: touch });
    if (touch) await page.call('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
    await page.call('Network.enable');
    page.errors = [];
    page.networkChanged = false;
    this.listeners.push((m) => {
      if (m.sessionId !== sessionId) return;
      if (m.method === 'Network.loadingFailed' && m.params.errorText === 'net::ERR_NETWORK_CHANGED') page.networkChanged = true;
      if (m.method === 'Runtime.exceptionThrown') page.errors.push(m.params.exceptionDetails.exception?.description ?? m.params.exceptionDetails.text);
      if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error') page.errors.push(m.params.args.map((a) => a.value ?? a.description).join(' '));
    });
    return page;
  }

  async close() {
    this.socket.close();
    await new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      this.child.once('exit', resolve);
      try { process.kill(-this.child.pid, 'SIGKILL'); } catch { this.child.kill('SIGKILL'); }
    });
    rmSync(this.profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

class Page {
  constructor(browser, sessionId, targetId) {
    this.browser = browser;
    this.sessionId = sessionId;
    this.targetId = targetId;
  }

  call(method, params) {
    return this.browser.call(method, params, this.sessionId);
  }

  /**
   * Navigates to `url` and waits for the load (the page's module scripts included). Chromium drops the
   * requests in flight when the machine's network interfaces change (other suites on the machine add and
   * remove some), which leaves a page without its scripts: then it loads the page again, up to three times.
   */
  async goto(url) {
    for (let attempt = 1; ; attempt++) {
      this.networkChanged = false;
      await this.call('Page.navigate', { url });
      await this.waitFor('the page to load', 'document.readyState === "complete"');
      if (!this.networkChanged || attempt === 3) return;
    }
  }

  /** Evaluates an expression in the page (awaiting a promise), returning its value. */
  async eval(expression) {
    const { result, exceptionDetails } = await this.call('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value;
  }

  async waitFor(what, expression, timeout = 15000) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = await this.eval(expression).catch(() => undefined);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${expression})`);
      await new Promise((r) => setTimeout(r, 30));
    }
  }

  /** Where a canvas point is on the page, in CSS pixels. */
  screenOf(x, y) {
    return this.eval(`(() => { const r = document.getElementById('board').getBoundingClientRect();
      const p = snapboard.view.toScreen({ x: ${x}, y: ${y} }); return { x: p.x + r.left, y: p.y + r.top }; })()`);
  }

  mouse(type, x, y, extra = {}) {
    return this.call('Input.dispatchMouseEvent', { type, x, y, button: 'left', buttons: type === 'mouseReleased' ? 0 : 1, clickCount: 1, ...extra });
  }

  async click(x, y) {
    await this.mouse('mouseMoved', x, y, { buttons: 0, button: 'none' });
    await this.mouse('mousePressed', x, y);
    await this.mouse('mouseReleased', x, y);
  }

  /** A drag from (x0, y0) to (x1, y1) in `steps` moves, a frame apart; the button is left held unless `release`. */
  async drag(x0, y0, x1, y1, { steps = 12, release = true } = {}) {
    await this.mouse('mouseMoved', x0, y0, { buttons: 0, button: 'none' });
    await this.mouse('mousePressed', x0, y0);
    for (let i = 1; i <= steps; i++) {
      await this.mouse('mouseMoved', x0 + ((x1 - x0) * i) / steps, y0 + ((y1 - y0) * i) / steps);
      await new Promise((r) => setTimeout(r, 20));
    }
    if (release) await this.mouse('mouseReleased', x1, y1);
  }

  /** A key press on the focused element: `key` as KeyboardEvent.key names it; `modifiers` any of alt, ctrl, meta, shift. */
  async key(key, { modifiers = [], code } = {}) {
    const bits = { alt: 1, ctrl: 2, meta: 4, shift: 8 };
    const mask = modifiers.reduce((m, name) => m | bits[name], 0);
    const text = key.length === 1 && !modifiers.some((m) => m === 'ctrl' || m === 'meta') ? key : undefined;
    const keyCode = key.length === 1 ? key.toUpperCase().charCodeAt(0)
      : { ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39, ArrowDown: 40, Delete: 46, Backspace: 8, Escape: 27, Enter: 13, ' ': 32, Tab: 9 }[key];
    const base = { key, code: code ?? (key.length === 1 ? `Key${key.toUpperCase()}` : key), modifiers: mask, windowsVirtualKeyCode: keyCode };
    await this.call('Input.dispatchKeyEvent', { type: text ? 'keyDown' : 'rawKeyDown', text, ...base });
    await this.call('Input.dispatchKeyEvent', { type: 'keyUp', ...base });
  }

  /** One wheel event at (x, y) CSS pixels: `deltaY` 100 is one notch of a mouse wheel; `modifiers` as for `key`. */
  wheel(x, y, deltaX, deltaY, { modifiers = [] } = {}) {
    const bits = { alt: 1, ctrl: 2, meta: 4, shift: 8 };
    return this.call('Input.dispatchMouseEvent', { type: 'mouseWheel', x, y, deltaX, deltaY, modifiers: modifiers.reduce((m, n) => m | bits[n], 0) });
  }

  /** Touch points as CDP takes them: [{x, y, id}]. */
  touch(type, touchPoints) {
    return this.call('Input.dispatchTouchEvent', { type, touchPoints });
  }

  /** A screenshot: {png (the file's bytes), width, height, pixel(x, y) → [r, g, b, a]} in device pixels. */
  async screenshot() {
    const { data } = await this.call('Page.captureScreenshot', { format: 'png' });
    const png = Buffer.from(data, 'base64');
    return { png, ...decodePNG(png) };
  }

  close() {
    return this.browser.call('Target.closeTarget', { targetId: this.targetId });
  }
}

/** Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes). */
export function decodePNG(png) {
  let offset = 8, width = 0, height = 0, colorType = 0;
  const idat = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') { width = body.readUInt32BE(0); height = body.readUInt32BE(4); colorType = body[9]; }
    if (type === 'IDAT') idat.push(body);
    offset += 12 + length;
  }
  const channels = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      let value = line[x];
      if (filter === 1) value += a;
      else if (filter === 2) value += b;
      else if (filter === 3) value += (a + b) >> 1;
      else if (filter === 4) { const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c); value += pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      pixels[y * stride + x] = value & 0xff;
    }
  }
  return {
    width, height,
    pixel(x, y) {
      const i = Math.round(y) * stride + Math.round(x) * channels;
      return [pixels[i], pixels[i + 1], pixels[i + 2], channels === 4 ? pixels[i + 3] : 255];
    },
  };
}
