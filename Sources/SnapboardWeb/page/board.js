// The whiteboard page (/c/{canvas}): takes the link's token out of the address, asks the display name,
// makes the client and wires it to the drawing surface, the actions, pointer input and keys (surface.js,
// actions.js, input.js, keyboard.js), the toolbar and its Arrange group, the status line and banners, the share dialog and the
// history panel, the style picker and the text editor. Every state of the connection is told in words here.

import { SnapboardAPI, SnapboardClient } from '../lib/index.js';
import { Actions } from './actions.js';
import { ArrangeTools } from './arrange.js';
import { tokenForm } from './dialogs.js';
import { HistoryPanel } from './history.js';
import { PointerInput } from './input.js';
import { handleKeys } from './keyboard.js';
import { displayName } from './names.js';
import { keepToken, ShareDialog, takeToken } from './share.js';
import { refusalText, StatusBar } from './status.js';
import { StylePicker } from './style-picker.js';
import { Surface } from './surface.js';
import { TextEditor } from './text-editor.js';
import { Toolbar } from './toolbar.js';

/** The states after which the client does not reconnect by itself (client.state). */
const stopped = new Set(['unauthorized', 'forbidden', 'expired', 'deleted', 'not_found', 'storage_full']);

/** What an access problem (client.problem.code) means and what to do, in words. */
const accessWords = {
  missing: 'This canvas needs an access token, and this page has none. Open it with the link you were given, or paste that link here.',
  malformed: 'The access token in your link is damaged: this server cannot read it. Copy the whole link again and paste it here.',
  bad_signature: 'The access token in your link was not issued for this server. Ask whoever shared the canvas for a new link.',
  expired: 'The access token in your link has expired. Ask for a new link and paste it here.',
  not_yet_valid: 'The access token in your link is not valid yet. Check this device’s clock, or ask for a new link.',
  wrong_canvas: 'The access token in your link is for another canvas, not this one. Open the link you were given for this canvas, or paste it here.',
  wrong_audience: 'The access token in your link was made for another service. Ask for a link made for this server.',
  wrong_issuer: 'The access token in your link comes from an issuer this server does not trust. Ask for a link made for this server.',
  origin: 'This server does not accept connections from this page’s address. Open the canvas from the server’s own address.',
  token_expired: 'Your access ran out, so the board is read-only now. Paste a new link or token to keep working.',
  canvas_deleted: 'This canvas was deleted, so nothing you do here is saved. Go to all canvases, or reload to start a new, empty canvas with this name.',
  viewer_cannot_create: 'There is no canvas with this name, and a view-only link cannot create one. Check the name, or ask for an editor link.',
  storage_full: 'The server already keeps as many canvases as it may, so this new canvas could not be made. Open an existing canvas, or ask the server’s operator to make room.',
};

/** The same, by state, for a stop whose problem code is not listed above. */
const stateWords = {
  unauthorized: 'Your access to this canvas was not accepted. Paste a new link or token to try again.',
  forbidden: 'The server refused this page. Open the canvas from the server’s own address.',
  expired: accessWords.token_expired,
  deleted: accessWords.canvas_deleted,
  not_found: 'There is no canvas with this name. Check the name, or ask for an editor link.',
  storage_full: accessWords.storage_full,
};

/** The sentence for a stopped state: the page's words for its problem, else the library's, else the state's. */
function stopSentence(state, problem) {
  return accessWords[problem?.code] ?? problem?.message ?? stateWords[state];
}

const canvasName = decodeURIComponent(location.pathname.slice('/c/'.length));
let token = takeToken(canvasName);
const name = await displayName(token);
const query = new URLSearchParams(location.search);
// One client id per tab: a reload keeps its colour and undo history, and exactly-once holds across reconnects.
const clientId = sessionStorage.getItem('snapboard.client') ?? crypto.randomUUID().replaceAll('-', '').slice(0, 16);
sessionStorage.setItem('snapboard.client', clientId);
const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
const client = new SnapboardClient({
  // `?role=viewer` opens the canvas view-only by choice, whatever the token allows.
  url: `${scheme}://${location.host}/v1/canvases/${encodeURIComponent(canvasName)}${query.get('role') === 'viewer' ? '?role=viewer' : ''}`,
  name, clientId, token,
});
let api = new SnapboardAPI({ base: location.origin, token });
const currentAPI = () => api;

const element = document.getElementById('board');
const surface = new Surface(element, client);
const status = new StatusBar(client);
// Viewers, and everyone once access ran out or the canvas is gone, send nothing and draw no local change.
const editable = () => client.canEdit;
surface.ui.editable = editable;
const actions = new Actions({ client, surface, status, editable });
const history = new HistoryPanel({ canvas: canvasName, client, api: currentAPI, back: element });
const share = new ShareDialog({ canvas: canvasName, api: currentAPI, back: element });
const toolbar = new Toolbar({ element, actions, onShare: () => share.open(), onHistory: () => history.toggle() });
const arrange = new ArrangeTools({ element, client, actions });
const styles = new StylePicker({ element, actions });
const editor = new TextEditor({ element, client, surface, status, editable });
Object.assign(actions, { styles, editor });
const input = new PointerInput({ element, client, surface, toolbar, status, actions, editable });
handleKeys({ client, surface, toolbar, status, actions, editable, input });

/** A new token pasted into a banner: kept for reloads, and the client reconnects with it. */
function useToken(fresh) {
  token = fresh;
  keepToken(canvasName, fresh);
  api = new SnapboardAPI({ base: location.origin, token: fresh });
  client.setToken(fresh);
}

/** The banners, the toolbar's editing tools and the status line for the client's state as it is now. */
function showState() {
  const state = client.state;
  status.set('offline', state === 'offline' ? 'Offline: your edits will be sent when the connection is back.' : null, { tone: 'warn' });
  if (stopped.has(state)) {
    // The import no longer matters once the canvas is gone or closed to this page: only the stop is told.
    status.set('replaced', null);
    history.toggle(false);
    const extra = [];
    if (state === 'unauthorized' || state === 'expired') extra.push(tokenForm(useToken));
    if (state === 'deleted' || state === 'not_found' || state === 'storage_full') {
      const home = document.createElement('a');
      home.href = '/';
      home.textContent = 'All canvases';
      extra.push(home);
    }
    // Rebuilt only when the sentence changes, so a half-pasted token is not wiped.
    const sentence = stopSentence(state, client.problem);
    if (status.text('access') !== sentence) status.set('access', sentence, { tone: state === 'expired' ? 'warn' : 'error', extra });
  } else {
    status.set('access', null);
  }
  const viewer = client.role === 'viewer';
  toolbar.setEditable({ viewer, readOnly: viewer || stopped.has(state) });
  toolbar.setStopped(stopped.has(state));
  status.showStatus();
  status.showPresence();
  surface.invalidate();
}

/** What the board shows of the client's events: the state, presence, pulses, refusals, an import. */
function follow() {
  const ui = surface.ui;
  client.on('state', showState);
  client.on('change', () => { status.showStatus(); surface.invalidate(); });
  client.on('welcome', () => { if (!surface.viewChosen) surface.fitView(); showState(); toolbar.showZoom(); });
  client.on('presence', () => status.showPresence());
  client.on('haptic', (h) => {
    if (navigator.vibrate) navigator.vibrate(12);
    for (const id of h.shapes) ui.pulses.set(id, performance.now());
    // The angle shows while this page scales or turns a shape; a haptic after the gesture ended shows none.
    if (h.reason === 'angle' && ['scale', 'rotate', 'pinch'].includes(input.mode)) ui.angleShape = h.shapes[0] ?? ui.angleShape;
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
  // Updates sent before a begin's refusal came back are refused in turn, as `no_gesture`: the begin's
  // sentence says why, and those echoes of it say nothing (a pinch sends one a frame, P29).
  let refusedBegin = false;
  client.on('reject', (r) => {
    const echo = refusedBegin && r.code === 'no_gesture', because = actions.answered(r.id, true);
    refusedBegin = echo || r.code === 'shape_locked' || r.code === 'locked';
    if (!echo) status.say(refusalText(r.code, r.message, because));
  });
  client.on('error', (e) => status.say(refusalText(e.code, e.message, e.id ? actions.answered(e.id, true) : undefined)));
  client.on('ack', (a) => {
    refusedBegin = false;
    actions.answered(a.id);
    if (a.skipped?.length) status.say(`${a.skipped.length === 1 ? 'One shape was' : `${a.skipped.length} shapes were`} left as they are: someone else changed them since.`);
    // The person has moved on from the import.
    status.set('replaced', null);
  });
  client.on('replaced', () => {
    actions.deselect();
    status.set('replaced', 'This canvas was replaced by an import: you see the imported canvas now, and your earlier changes can no longer be undone.', { tone: 'info', dismissible: true });
  });
  element.addEventListener('viewchange', () => toolbar.showZoom());
}

follow();
new ResizeObserver(() => surface.resize()).observe(element);
document.title = `${canvasName} · Snapboard`;
// A tab that closes or navigates away leaves at once ("going away"), not after the server's idle
// timeout; one restored from the back-forward cache joins again.
addEventListener('pagehide', () => client.close(1001));
addEventListener('pageshow', (event) => { if (event.persisted) client.connect(); });
showState();
client.connect();
element.focus();

// For people debugging from the console, and for the browser tests: the client, the view, frame costs.
window.snapboard = { client, view: surface.view, ui: surface.ui, frameTimes: surface.frameTimes, invalidate: surface.invalidate, actions, status, toolbar, arrange, styles, editor, api: currentAPI };
