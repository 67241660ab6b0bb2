// The whiteboard page (/c/{canvas}): makes the client from the page's address and wires it to the
// drawing surface (surface.js, render.js), the toolbar, the status bar, pointer input and the keyboard.

import { SnapboardClient } from '../lib/index.js';
import { PointerInput } from './input.js';
import { handleKeys } from './keyboard.js';
import { StatusBar } from './status.js';
import { Surface } from './surface.js';
import { Toolbar } from './toolbar.js';

/** The client for the canvas this page's address names, as the person who opens it. */
function makeClient() {
  const canvasName = decodeURIComponent(location.pathname.slice('/c/'.length));
  const query = new URLSearchParams(location.search);
  const name = query.get('name') ?? localStorage.getItem('snapboard.name') ?? `guest-${Math.floor(Math.random() * 1000)}`;
  // One client id per tab: a reload keeps its colour, and exactly-once holds across reconnects.
  const clientId = sessionStorage.getItem('snapboard.client') ?? crypto.randomUUID().replaceAll('-', '').slice(0, 16);
  sessionStorage.setItem('snapboard.client', clientId);
  const client = new SnapboardClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/v1/canvases/${encodeURIComponent(canvasName)}`,
    name, clientId,
    // A link to a board on a server that requires tokens carries one: /c/{canvas}?token=…
    token: query.get('token') ?? undefined,
  });
  return { client, canvasName };
}

/** What the board shows of the client's events: the status, presence, pulses, refusals. */
function follow({ client, surface, status, input }) {
  const ui = surface.ui;
  client.on('change', () => { status.showStatus(); surface.invalidate(); });
  client.on('welcome', () => { if (!surface.viewChosen) surface.fitView(); status.showPresence(); });
  client.on('presence', () => status.showPresence());
  client.on('haptic', (h) => {
    if (navigator.vibrate) navigator.vibrate(12);
    for (const id of h.shapes) ui.pulses.set(id, performance.now());
    if (h.reason === 'angle') ui.angleShape = h.shapes[0] ?? ui.angleShape;
  });
  // Haptics reach only the dragger (P9); everyone else sees the pulse when a new guide appears on a shape.
  let lastGuides = '';
  client.on('delta', (d) => {
    const replica = client.replica;
    const guides = [...replica.guides.map((g) => `${g.axis}:${g.target}`), ...replica.gaps.map((g) => `${g.axis}:gap:${g.gap}`)].sort().join(' ');
    if (guides && guides !== lastGuides) for (const id of d.shapes) ui.pulses.set(id, performance.now());
    lastGuides = guides;
    if (!d.live && ui.angleShape && replica.leases[ui.angleShape] === undefined && input.mode === 'idle') ui.angleShape = null;
  });
  client.on('reject', (r) => status.say(`refused: ${r.code.replaceAll('_', ' ')}`));
  client.on('error', (e) => status.say(`error: ${e.code.replaceAll('_', ' ')}`));
}

const { client, canvasName } = makeClient();
const element = document.getElementById('board');
const surface = new Surface(element, client);
const toolbar = new Toolbar(element);
const status = new StatusBar(client);
const input = new PointerInput({ element, client, surface, toolbar, status });
handleKeys({ element, client, surface, toolbar, status });
follow({ client, surface, status, input });

new ResizeObserver(() => surface.resize()).observe(element);
document.title = `${canvasName} · Snapboard`;
client.connect();
element.focus();

// For people debugging from the console, and for the browser tests: the client, the view, frame costs.
window.snapboard = { client, view: surface.view, ui: surface.ui, frameTimes: surface.frameTimes, invalidate: surface.invalidate };
