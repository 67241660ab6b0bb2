// The whiteboard page (/c/{canvas}): wires the client library to an HTML canvas, pointer input for mouse,
// pen and touch, the keyboard, the presence list and the status bar. Drawing is in render.js.

import { contains } from './geometry.js';
import { draw } from './render.js';
import { SnapboardClient } from './snapboard.js';
import { span, turn, Viewport } from './viewport.js';

const kinds = [
  ['dot', 'Dot'], ['roundedRect', 'Rounded rect'], ['oval', 'Oval'], ['triangle', 'Triangle'],
  ['polygon', 'Polygon'], ['star', 'Star'], ['fractal', 'Fractal'],
];
const tapSlop = 6;  // CSS pixels a press may travel and still be a tap

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

const element = document.getElementById('board');
const ctx = element.getContext('2d');
const view = new Viewport();
const ui = { client, view, selected: null, pulses: new Map(), angleShape: null, now: 0, width: 0, height: 0, dpr: 1 };
/** Draw durations in milliseconds, the latest last: what the page's own frames cost. */
const frameTimes = [];
/** True once the person panned or zoomed: from then on a resize keeps their view instead of fitting the canvas. */
let viewChosen = false;
let kind = localStorage.getItem('snapboard.kind') ?? 'roundedRect';
let dirty = false;

function invalidate() {
  if (dirty) return;
  dirty = true;
  requestAnimationFrame((now) => {
    dirty = false;
    ui.now = now;
    const started = performance.now();
    const animating = draw(ctx, ui);
    frameTimes.push(performance.now() - started);
    if (frameTimes.length > 240) frameTimes.shift();
    if (animating) invalidate();
  });
}

function resize() {
  const rect = element.getBoundingClientRect();
  ui.dpr = window.devicePixelRatio || 1;
  ui.width = rect.width;
  ui.height = rect.height;
  element.width = Math.round(rect.width * ui.dpr);
  element.height = Math.round(rect.height * ui.dpr);
  if (!viewChosen) fitView();
  invalidate();
}

function fitView() {
  if (!client.replica.width || !ui.width) return;
  view.fit(client.replica.width, client.replica.height, ui.width, ui.height);
  viewChosen = false;
  client.setZoom(view.scale);
  invalidate();
}

// MARK: Toolbar, presence, status

const kindBar = document.getElementById('kinds');
for (const [value, title] of kinds) {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = title;
  button.dataset.kind = value;
  button.setAttribute('aria-pressed', String(value === kind));
  button.addEventListener('click', () => {
    kind = value;
    localStorage.setItem('snapboard.kind', kind);
    for (const b of kindBar.children) b.setAttribute('aria-pressed', String(b.dataset.kind === kind));
    element.focus();
  });
  kindBar.append(button);
}

const help = document.getElementById('help');
const toggleHelp = (show = help.hidden) => { help.hidden = !show; };
document.getElementById('help-button').addEventListener('click', () => toggleHelp());
document.getElementById('help-close').addEventListener('click', () => { toggleHelp(false); element.focus(); });

const hint = document.getElementById('hint');
let hintTimer = null;
function say(text) {
  hint.textContent = text;
  clearTimeout(hintTimer);
  hintTimer = setTimeout(() => { hint.textContent = ''; }, 3000);
}

function showPresence() {
  const list = document.getElementById('sessions');
  list.replaceChildren(...[...client.replica.sessions].map(([id, who]) => {
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = who.color;
    item.append(swatch, `${who.name}${id === client.replica.session ? ' (you)' : ''}`);
    item.dataset.session = String(id);
    return item;
  }));
}

function showStatus() {
  document.getElementById('state').textContent = client.state;
  document.getElementById('seq').textContent = client.replica.seq >= 0 ? String(client.replica.seq) : '–';
  document.getElementById('rtt').textContent = client.rtt === null ? '–' : `${client.rtt.toFixed(1)} ms`;
  document.getElementById('offline').hidden = client.state !== 'offline';
}

client.on('change', () => { showStatus(); invalidate(); });
client.on('welcome', () => { if (!viewChosen) fitView(); showPresence(); });
client.on('presence', showPresence);
client.on('haptic', (h) => {
  if (navigator.vibrate) navigator.vibrate(12);
  for (const id of h.shapes) ui.pulses.set(id, performance.now());
  if (h.reason === 'angle') ui.angleShape = h.shapes[0] ?? ui.angleShape;
});
// Haptics reach only the dragger (P9); everyone else sees the pulse when a new guide appears on a shape.
let lastGuides = '';
client.on('delta', (d) => {
  const guides = [...client.replica.guides.map((g) => `${g.axis}:${g.target}`), ...client.replica.gaps.map((g) => `${g.axis}:gap:${g.gap}`)].sort().join(' ');
  if (guides && guides !== lastGuides) for (const id of d.shapes) ui.pulses.set(id, performance.now());
  lastGuides = guides;
  if (!d.live && ui.angleShape && client.replica.leases[ui.angleShape] === undefined && mode === 'idle') ui.angleShape = null;
});
client.on('reject', (r) => say(`refused: ${r.code.replaceAll('_', ' ')}`));
client.on('error', (e) => say(`error: ${e.code.replaceAll('_', ' ')}`));

// MARK: Pointer input

const pointers = new Map();
/** What the current press does: tap | pan | move | rotate | pinch | view | idle. */
let mode = 'idle';
let press = null;

function canvasPoint(event) {
  const rect = element.getBoundingClientRect();
  return view.toCanvas({ x: event.clientX - rect.left, y: event.clientY - rect.top });
}

function screenPoint(event) {
  const rect = element.getBoundingClientRect();
  return { x: event.clientX - rect.left, y: event.clientY - rect.top };
}

function shapeAt(p) {
  const shapes = client.drawingOrder();
  for (let i = shapes.length - 1; i >= 0; i--) if (contains(shapes[i], p)) return shapes[i];
  return null;
}

function heldByOther(id) {
  const holder = client.replica.leases[id];
  return holder !== undefined && holder !== client.replica.session ? client.replica.sessions.get(holder) : null;
}

function clampToCanvas(p) {
  return { x: Math.min(Math.max(p.x, 0), client.replica.width), y: Math.min(Math.max(p.y, 0), client.replica.height) };
}

element.addEventListener('pointerdown', (event) => {
  element.focus();
  element.setPointerCapture(event.pointerId);
  pointers.set(event.pointerId, screenPoint(event));
  if (pointers.size === 1) {
    const p = canvasPoint(event);
    const hit = shapeAt(p);
    press = { start: screenPoint(event), startCanvas: p, shape: hit?.id ?? null, gesture: null };
    if (hit && heldByOther(hit.id)) {
      say(`${heldByOther(hit.id).name} is changing that shape`);
      mode = 'pan';
    } else if (hit) {
      ui.selected = hit.id;
      if (event.shiftKey) {
        mode = 'rotate';
        press.startAngle = Math.atan2(p.y - hit.y, p.x - hit.x);
        press.center = { x: hit.x, y: hit.y };
        press.gesture = client.gesture('rotate', hit.id);
        ui.angleShape = hit.id;
      } else {
        mode = 'move';
        press.gesture = client.gesture('move', hit.id);
      }
    } else {
      mode = 'tap';
    }
  } else if (pointers.size === 2) {
    const [a, b] = [...pointers.values()];
    const s = span(a, b);
    if ((mode === 'move' || mode === 'rotate') && press?.gesture) {
      // Two fingers on a shape: pinch and turn it about the point between them. The re-begin keeps it in place (P14).
      press.gesture.end();
      const anchor = clampToCanvas(view.toCanvas(s.mid));
      press = { ...press, gesture: client.gesture('scale', press.shape), span: s, anchor };
      ui.angleShape = press.shape;
      mode = 'pinch';
    } else {
      press = { span: s, anchor: view.toCanvas(s.mid), scale: view.scale };
      mode = 'view';
    }
  }
  invalidate();
});

element.addEventListener('pointermove', (event) => {
  if (event.pointerType !== 'touch') {
    const p = canvasPoint(event);
    client.cursor(p.x, p.y);
  }
  if (!pointers.has(event.pointerId)) return;
  const previous = pointers.get(event.pointerId);
  const now = screenPoint(event);
  pointers.set(event.pointerId, now);
  switch (mode) {
    case 'tap':
      if (Math.hypot(now.x - press.start.x, now.y - press.start.y) > tapSlop) mode = 'pan';
      break;
    case 'pan':
      viewChosen = true;
      view.pan(now.x - previous.x, now.y - previous.y);
      invalidate();
      break;
    case 'move': {
      const p = canvasPoint(event);
      press.gesture.update({ dx: p.x - press.startCanvas.x, dy: p.y - press.startCanvas.y });
      break;
    }
    case 'rotate': {
      const p = canvasPoint(event);
      const angle = Math.atan2(p.y - press.center.y, p.x - press.center.x);
      press.turned = (press.turned ?? 0) + turn(press.lastAngle ?? press.startAngle, angle);
      press.lastAngle = angle;
      press.gesture.update({ radians: press.turned });
      break;
    }
    case 'pinch':
    case 'view': {
      if (pointers.size < 2) break;
      const [a, b] = [...pointers.values()];
      const s = span(a, b);
      if (mode === 'view') {
        viewChosen = true;
        view.place(press.anchor, press.scale * (s.distance / press.span.distance), s.mid.x, s.mid.y);
        invalidate();
      } else {
        press.turned = (press.turned ?? 0) + turn(press.lastAngle ?? press.span.angle, s.angle);
        press.lastAngle = s.angle;
        press.gesture.update({ factor: s.distance / press.span.distance, radians: press.turned, ax: press.anchor.x, ay: press.anchor.y });
      }
      break;
    }
    default:
      break;
  }
});

function release(event) {
  if (!pointers.delete(event.pointerId)) return;
  switch (mode) {
    case 'tap': {
      const p = canvasPoint(event);
      ui.selected = null;
      if (p.x >= 0 && p.y >= 0 && p.x <= client.replica.width && p.y <= client.replica.height) client.snap(p.x, p.y, { kind });
      break;
    }
    case 'move':
    case 'rotate':
    case 'pinch':
      press.gesture.end();
      break;
    case 'view':
      client.setZoom(view.scale);
      break;
    default:
      break;
  }
  // A lifted finger ends the gesture; the other one does nothing until it is lifted too.
  mode = pointers.size === 0 ? 'idle' : 'done';
  invalidate();
}

element.addEventListener('pointerup', release);
element.addEventListener('pointercancel', release);
element.addEventListener('pointerleave', (event) => { if (event.pointerType !== 'touch') client.cursor(); });

// The wheel: Ctrl (and a trackpad pinch) zooms the view, over the selection it scales it, otherwise it pans.
let wheel = null;
let zoomTimer = null;
element.addEventListener('wheel', (event) => {
  event.preventDefault();
  const s = screenPoint(event);
  const p = view.toCanvas(s);
  if (event.ctrlKey) {
    viewChosen = true;
    view.zoomAbout(Math.exp(-event.deltaY * 0.01), s.x, s.y);
    // The server hears the zoom once the wheel rests.
    clearTimeout(zoomTimer);
    zoomTimer = setTimeout(() => client.setZoom(view.scale), 150);
    invalidate();
    return;
  }
  const selected = ui.selected && client.replica.shapes.get(ui.selected);
  if (selected && contains(selected, p) && !heldByOther(selected.id)) {
    if (!wheel || wheel.shape !== selected.id) {
      wheel?.gesture.end();
      wheel = { shape: selected.id, gesture: client.gesture('scale', selected.id), factor: 1, anchor: clampToCanvas(p) };
    }
    wheel.factor *= Math.exp(-event.deltaY * 0.002);
    wheel.gesture.update({ factor: wheel.factor, ax: wheel.anchor.x, ay: wheel.anchor.y });
    clearTimeout(wheel.timer);
    wheel.timer = setTimeout(() => { wheel.gesture.end(); wheel = null; }, 250);
    return;
  }
  viewChosen = true;
  view.pan(-event.deltaX, -event.deltaY);
  invalidate();
}, { passive: false });

// MARK: Keyboard

element.addEventListener('keydown', (event) => {
  const id = ui.selected;
  const needSelection = () => { if (!id) say('select a shape first'); return !!id; };
  const step = (event.shiftKey ? 10 : 1) * 8;
  const arrows = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
  if (event.key in arrows) {
    event.preventDefault();
    if (needSelection()) client.send({ op: 'move', shape: id, dx: arrows[event.key][0], dy: arrows[event.key][1] });
  } else if (event.key === '+' || event.key === '=' || event.key === '-') {
    if (needSelection()) client.send({ op: 'scale', shape: id, factor: event.key === '-' ? 0.8 : 1.25 });
  } else if (event.key === 'r' || event.key === 'R') {
    if (needSelection()) {
      ui.angleShape = id;
      client.send({ op: 'rotate', shape: id, radians: (event.key === 'r' ? 1 : -1) * Math.PI / 12 });
    }
  } else if (event.key === 'Delete' || event.key === 'Backspace') {
    event.preventDefault();
    if (needSelection()) {
      client.delete([id]);
      ui.selected = null;
    }
  } else if ((event.ctrlKey || event.metaKey) && (event.key === 'z' || event.key === 'Z' || event.key === 'y')) {
    event.preventDefault();
    if (event.key === 'z' && !event.shiftKey) client.undo();
    else client.redo();
  } else if (event.key === 'Escape') {
    ui.selected = null;
    toggleHelp(false);
  } else if (event.key === '0') {
    fitView();
  } else if (event.key === '?') {
    toggleHelp();
  } else {
    return;
  }
  invalidate();
});

new ResizeObserver(resize).observe(element);
document.title = `${canvasName} · Snapboard`;
client.connect();
element.focus();

// For people debugging from the console, and for the browser tests: the client, the view, frame costs.
window.snapboard = { client, view, ui, frameTimes, invalidate };
