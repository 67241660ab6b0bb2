// The start page (/): a new canvas, opening one by name, and the canvases this person's token may see
// (every stored canvas on an open server), as links with when each last changed.

import { SnapboardAPI } from '../lib/index.js';
import { refusalOf, takeToken } from './share.js';

const form = document.getElementById('open');
const input = document.getElementById('canvas');
const list = document.getElementById('canvases');
const note = document.getElementById('list-note');
const more = document.getElementById('more');

const bytes = new Uint8Array(5);
crypto.getRandomValues(bytes);
document.getElementById('new-canvas').href = `/c/board-${[...bytes].map((b) => b.toString(36).padStart(2, '0')).join('').slice(0, 8)}`;

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
