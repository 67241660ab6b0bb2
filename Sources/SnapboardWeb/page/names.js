// The display name others see: `?name=` in the address (for links and tests: it skips the question), else
// the name this device remembers (localStorage 'snapboard.name'), else the name the access token carries,
// else asked once in a dialog.

import { tokenClaims } from './share.js';

/** Where the remembered name is kept. */
export const nameKey = 'snapboard.name';

/** Longest name the server keeps (P11). */
const maxName = 64;

/**
 * Characters the server removes from a name (PROTOCOL.md P11): control characters, bidirectional
 * embeddings, overrides and isolates, and zero-width and invisible formatting characters.
 */
const invisible = /[\p{Cc}\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/gu;

/**
 * A name as the server keeps it (P11): invisible characters removed, white space trimmed and folded, at
 * most 64 characters; null when nothing is left, so a name of only invisible characters is no name.
 */
export function cleanName(text) {
  if (typeof text !== 'string') return null;
  const name = [...text.replace(invisible, '').replace(/\s+/gu, ' ').trim()].slice(0, maxName).join('').trim();
  return name || null;
}

/** The name given in the address, remembered on this device, or null. */
export function knownName(query = new URLSearchParams(location.search)) {
  return cleanName(query.get('name')) ?? cleanName(localStorage.getItem(nameKey));
}

/** The `name` claim of an access token (a JWT), or null: the server shows that name whatever the page asks. */
export function tokenName(token) {
  return cleanName(tokenClaims(token)?.name);
}

/**
 * Resolves to the display name: the known one at once, else the token's, else what the person types in
 * the name dialog (remembered for the next visit).
 */
export function displayName(token) {
  const known = knownName() ?? (token ? tokenName(token) : null);
  if (known) return Promise.resolve(known);
  const dialog = document.getElementById('name-dialog');
  const form = document.getElementById('name-form');
  const input = document.getElementById('name-input');
  return new Promise((resolve) => {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const name = cleanName(input.value);
      if (!name) {
        // Only spaces or invisible characters: the field is not empty, yet no one would see a name.
        input.setCustomValidity('Type a name others can see: letters, digits or signs.');
        input.reportValidity();
        return;
      }
      localStorage.setItem(nameKey, name);
      dialog.close();
      resolve(name);
    });
    input.addEventListener('input', () => input.setCustomValidity(''));
    // Escape would leave the board without a name: the dialog stays until one is given.
    dialog.addEventListener('cancel', (event) => event.preventDefault());
    dialog.showModal();
    input.focus();
  });
}
