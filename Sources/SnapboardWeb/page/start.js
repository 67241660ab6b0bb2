// The start page (/): a new canvas, opening one by name, and the canvases this person's token may see
// (every stored canvas on an open server), as links with when each last changed.

import { SnapboardAPI } from '../lib/index.js';
import { refusalOf, takeToken, tokenClaims } from './share.js';

const form = document.getElementById('open');
const input = document.getElementById('canvas');
const list = document.getElementById('canvases');
const note = document.getElementById('list-note');
const more = document.getElementById('more');


form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!input.reportValidity()) return;
  location.href = `/c/${encodeURIComponent(input.value)}`;
});

/** "3 minutes ago", "yesterday", or the date, for a time in seconds since 1970. */
export function ago(seconds, now = Date.now() / 1000) {
  const d = Math.max(0, now - seconds);
  if (d < 60) return 'just now';
  if (d < 3600) return `${Math.floor(d / 60)} min ago`;
  if (d < 86400) return `${Math.floor(d / 3600)} h ago`;
  if (d < 2 * 86400) return 'yesterday';
  return new Date(seconds * 1000).toLocaleDateString();
}

/** One canvas of the listing as a link with its number of changes and when it last changed. */
function item(canvas) {
  const li = document.createElement('li');
  const link = document.createElement('a');
  link.href = `/c/${encodeURIComponent(canvas.id)}`;
  link.textContent = canvas.id;
  const meta = document.createElement('span');
  meta.className = 'meta';
  const changes = canvas.seq === 1 ? '1 change' : `${canvas.seq} changes`;
  meta.textContent = typeof canvas.changedAt === 'number' ? `${changes} · ${ago(canvas.changedAt)}` : changes;
  li.append(link, meta);
  return li;
}

const token = takeToken();
const api = new SnapboardAPI({ base: location.origin, token });

/** Longest canvas name (PROTOCOL.md P1). */
const maxCanvas = 64;

/** Eight random letters and digits. */
function randomPart() {
  const bytes = new Uint8Array(5);
  crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(36).padStart(2, '0')).join('').slice(0, 8);
}

/**
 * Where New canvas leads, for the `canvas` claim of this tab's token: `{href}`, or `{reason}` when the
 * token cannot make a canvas. A prefix claim (`team-*`) names the new canvas inside the prefix, so the
 * token opens it; a claim of one canvas opens only that one. The claim is read here only to offer what
 * can work: the server decides access.
 */
export function newCanvas(claims, random = randomPart()) {
  const claim = typeof claims?.canvas === 'string' ? claims.canvas : null;
  if (claims?.role === 'viewer') {
    return { reason: 'Your access token only lets you view canvases, so it cannot make a new one.' };
  }
  if (claim === null || claim === '*') return { href: `/c/board-${random}` };
  if (claim.endsWith('*')) {
    const prefix = claim.slice(0, -1);
    return { href: `/c/${encodeURIComponent(prefix + random.slice(0, Math.max(0, maxCanvas - prefix.length)))}` };
  }
  return { reason: `Your access token opens only the canvas “${claim}”, so a new canvas made with it could not be opened.` };
}

const made = newCanvas(token ? tokenClaims(token) : null);
const newLink = document.getElementById('new-canvas');
if (made.href) {
  newLink.href = made.href;
} else {
  newLink.hidden = true;
  const why = document.getElementById('new-note');
  why.textContent = made.reason;
  why.hidden = false;
}

/** Lists one page of canvases after `after`, adding a "More" button while there are more. */
async function listFrom(after) {
  try {
    const page = await api.listCanvases(after ? { after } : {});
    list.append(...page.canvases.map(item));
    note.textContent = list.children.length === 0
      ? (token ? 'Your access token covers no stored canvas yet.' : 'No canvases yet: make one with New canvas.')
      : '';
    more.hidden = !page.next;
    if (page.next) more.addEventListener('click', () => { more.hidden = true; listFrom(page.next); }, { once: true });
  } catch (error) {
    more.hidden = true;
    if (error?.status === 401 && !token) {
      note.textContent = 'This server keeps its list of canvases private: open a canvas by name, or use a link you were given, and the canvases it covers are listed here when you come back.';
    } else if (error?.status === 401) {
      note.textContent = `Your access token may not list canvases here. ${refusalOf(error)}`;
    } else {
      note.textContent = `The canvases could not be listed. ${refusalOf(error)}`;
    }
  }
}

listFrom();
