// Links and access: the token a link brings is moved out of the address into this tab's sessionStorage
// (so it does not leak through screenshots, history or Referer, and a reload still works), and the share
// dialog, which gives the canvas's link and, where the server uses access tokens and this person's token
// is an editor's, mints a view-only or an editor link (POST /v1/tokens through the library).

import { copyableField, openDialog, wireCopyButtons } from './dialogs.js';

/** The last token this tab was given: the start page lists canvases with it. */
export const lastTokenKey = 'snapboard.token';
/** The token this tab was given for one canvas. */
export const canvasTokenKey = (canvas) => `snapboard.token:${canvas}`;

/**
 * Takes a `?token=` out of the address into sessionStorage (and the address bar, with replaceState), and
 * returns the token to use: the one just given, else the one kept for `canvas`, else the last one (which
 * may cover several canvases), else undefined.
 */
export function takeToken(canvas) {
  const url = new URL(location.href);
  const given = url.searchParams.get('token');
  if (given) {
    sessionStorage.setItem(lastTokenKey, given);
    if (canvas) sessionStorage.setItem(canvasTokenKey(canvas), given);
    url.searchParams.delete('token');
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
    return given;
  }
  return (canvas && sessionStorage.getItem(canvasTokenKey(canvas))) || sessionStorage.getItem(lastTokenKey) || undefined;
}

/**
 * The claims of an access token (a JWT's payload), or null when it cannot be read. Only for what the page
 * shows (a name, whether New canvas can work): the server checks the signature and decides access.
 */
export function tokenClaims(token) {
  try {
    const payload = token.split('.')[1].replaceAll('-', '+').replaceAll('_', '/');
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(payload), (c) => c.charCodeAt(0))));
    return claims !== null && typeof claims === 'object' ? claims : null;
  } catch {
    return null;
  }
}

/** Keeps a token pasted later for `canvas` (a reload uses it). */
export function keepToken(canvas, token) {
  sessionStorage.setItem(lastTokenKey, token);
  sessionStorage.setItem(canvasTokenKey(canvas), token);
}

/** What the access answer means for sharing, in words; `mint` is true when this person may mint links. */
export function shareAdvice(access) {
  if (!access.tokens) {
    return { mint: false, text: 'This server needs no access tokens: anyone who has this link can open the canvas and change it.' };
  }
  if (access.role !== 'editor') {
    return {
      mint: false,
      text: 'This server requires an access token, and yours only lets you view this canvas, so you cannot make links for others. Ask whoever gave you your link for one.',
    };
  }
  return { mint: true, text: 'This server requires an access token: the plain link lets in only people who already have one.' };
}

/** Why a request was refused, in words, from an APIError (or anything thrown). */
export function refusalOf(error) {
  if (error?.status === 401) return `Your access was not accepted (${error.message ?? 'no valid token'}). Open the canvas with a fresh link.`;
  if (error?.status === 403) return `Not allowed: ${error.message ?? 'your access does not cover that'}.`;
  if (error?.status === 404) return error.message ? `${error.message[0].toUpperCase()}${error.message.slice(1)}.` : 'The server has no such thing.';
  if (error?.status === 429 || error?.status === 503) return 'The server is busy: try again in a moment.';
  if (error?.status) return `The server refused: ${error.message ?? error.code}.`;
  return 'The server could not be reached: check the connection and try again.';
}

export class ShareDialog {
  /**
   * @param {object} options
   * @param {string} options.canvas  the canvas shared
   * @param {() => import('../lib/index.js').SnapboardAPI} options.api  the API with this person's current token
   * @param {HTMLElement} options.back  what takes the focus when the dialog closes
   */
  constructor({ canvas, api, back }) {
    Object.assign(this, { canvas, api, back });
    this.dialog = document.getElementById('share-dialog');
    this.note = document.getElementById('share-note');
    this.mintBox = document.getElementById('share-mint');
    this.minted = document.getElementById('minted');
    wireCopyButtons(this.dialog);
    document.getElementById('mint-viewer').addEventListener('click', () => this.mint('viewer'));
    document.getElementById('mint-editor').addEventListener('click', () => this.mint('editor'));
  }

  /** Opens the dialog with the canvas's link, then says what this person's access allows. */
  async open() {
    document.getElementById('share-link').value = `${location.origin}/c/${encodeURIComponent(this.canvas)}`;
    this.note.textContent = 'Checking what your access allows…';
    this.mintBox.hidden = true;
    this.minted.replaceChildren();
    openDialog(this.dialog, { closeId: 'share-close', back: this.back });
    try {
      const advice = shareAdvice(await this.api().access(this.canvas));
      this.note.textContent = advice.text;
      this.mintBox.hidden = !advice.mint;
    } catch (error) {
      this.note.textContent = `No link with access can be made: ${refusalOf(error)}`;
    }
  }

  /** Mints a link for `role` and shows it with a Copy button and its expiry. */
  async mint(role) {
    const what = role === 'viewer' ? 'View-only link' : 'Editor link';
    const line = document.createElement('div');
    line.className = 'minted';
    line.dataset.role = role;
    try {
      const made = await this.api().mintToken({ canvas: this.canvas, role });
      const link = `${location.origin}${made.link ?? `/c/${encodeURIComponent(this.canvas)}?token=${encodeURIComponent(made.token)}`}`;
      const label = document.createElement('label');
      label.textContent = `${what}${made.expiresAt ? `, valid until ${new Date(made.expiresAt * 1000).toLocaleString()}` : ''}`;
      line.append(label, copyableField(`minted-${role}`, link, what));
    } catch (error) {
      line.textContent = `The ${what.toLowerCase()} could not be made. ${refusalOf(error)}`;
    }
    this.minted.querySelector(`[data-role="${role}"]`)?.remove();
    this.minted.append(line);
  }
}
