// What the JavaScript tests share: the real snapboard-server on port 0, HTTP GETs, and waiting.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const root = new URL('../../', import.meta.url).pathname;
export const serverBinary = process.env.SNAPBOARD_SERVER ?? join(root, '.build/debug/snapboard-server');
/**
 * The page and library the servers serve: the working copy, so a test sees the files as they are now,
 * not as the last `swift build` copied them beside the binary. SNAPBOARD_WEB_ROOT names another folder.
 */
export const webRoot = process.env.SNAPBOARD_WEB_ROOT ?? join(root, 'Sources/SnapboardWeb');

/** Starts snapboard-server (port 0 unless given) on a fresh SQLite file; resolves once it listens. */
export async function startServer({ port = 0, data, args = [] } = {}) {
  const dir = data ? null : mkdtempSync(join(tmpdir(), 'snapboard-web-'));
  const dataPath = data ?? join(dir, 'canvases.sqlite');
  const child = spawn(serverBinary, ['--port', String(port), '--log-level', 'warning', '--data', dataPath, '--web-root', webRoot, ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const listening = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const line = text.split('\n')[0];
      if (text.includes('\n')) resolve(Number(line.split(':').at(-1)));
    });
    child.on('exit', (code) => reject(new Error(`snapboard-server exited with ${code} before listening: ${text}`)));
  });
  return {
    port: listening,
    dataPath,
    http: `http://127.0.0.1:${listening}`,
    ws: (canvas) => `ws://127.0.0.1:${listening}/v1/canvases/${canvas}`,
    kill(signal = 'SIGKILL') {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill(signal);
      });
    },
    async stop() {
      await this.kill('SIGKILL');
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** GET a path; resolves to {status, headers, body}, the body parsed when it is JSON. */
export async function get(server, path, headers = {}) {
  const response = await fetch(server.http + path, { headers });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined;
  return { status: response.status, headers: response.headers, body: json ?? text };
}

/** Polls `check` until it returns something truthy, or fails after `timeout` ms saying `what`. */
export async function until(what, check, timeout = 10000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A second client watching the wire: a plain WebSocket on `canvas` that records every message the server
 * sends it. `committed()` lists the committed deltas (those not `live`, in seq order) seen so far, so a test
 * proves what a page did and did not commit. `close()` ends it.
 */
export async function watch(server, canvas, { token, name = 'watcher', role } = {}) {
  const params = new URLSearchParams({ client: `watch${Math.floor(Math.random() * 1e9)}`, revision: '4', name });
  if (token) params.set('token', token);
  if (role) params.set('role', role);
  const socket = new WebSocket(`${server.ws(canvas)}?${params}`);
  const messages = [];
  socket.onmessage = (event) => {
    const value = JSON.parse(event.data);
    for (const m of Array.isArray(value) ? value : [value]) messages.push(m);
  };
  await until(`the watcher on ${canvas} welcomed`, () => messages.some((m) => m.type === 'welcome'));
  return {
    messages,
    /** The committed deltas seen so far: every delta that is not `live` (each one seq). */
    committed: () => messages.filter((m) => m.type === 'delta' && !m.live),
    /** The seq of the last message that carried one. */
    seq: () => messages.reduce((s, m) => (typeof m.seq === 'number' ? Math.max(s, m.seq) : s), -1),
    close: () => socket.close(),
  };
}

/** Sends `method` to a path with a JSON body; resolves to {status, headers, body} as `get` does. */
export async function send(server, method, path, body, headers = {}) {
  const response = await fetch(server.http + path, {
    method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text && response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined;
  return { status: response.status, headers: response.headers, body: json ?? text };
}
