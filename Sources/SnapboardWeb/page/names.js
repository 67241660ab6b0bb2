// The display name others see: `?name=` in the address (for links and tests: it skips the question), else
// the name this device remembers (localStorage 'snapboard.name'), else the name the access token carries,
// else asked once in a dialog.

/** Where the remembered name is kept. */
export const nameKey = 'snapboard.name';

/** Longest name the server keeps (P11). */
const maxName = 64;

/** The name given in the address, remembered on this device, or null. */
export function knownName(query = new URLSearchParams(location.search)) {
  const given = query.get('name')?.trim();
  if (given) return given.slice(0, maxName);
  const kept = localStorage.getItem(nameKey)?.trim();
  return kept ? kept.slice(0, maxName) : null;
}

/** The `name` claim of an access token (a JWT), or null: the server shows that name whatever the page asks. */
export function tokenName(token) {
  try {
    const payload = token.split('.')[1].replaceAll('-', '+').replaceAll('_', '/');
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(payload), (c) => c.charCodeAt(0))));
    return typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, maxName) : null;
  } catch {
    return null;
  }
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
      const name = input.value.trim().slice(0, maxName);
      if (!name) { input.reportValidity(); return; }
      localStorage.setItem(nameKey, name);
      dialog.close();
      resolve(name);
    });
    // Escape would leave the board without a name: the dialog stays until one is given.
    dialog.addEventListener('cancel', (event) => event.preventDefault());
    dialog.showModal();
    input.focus();
  });
}
