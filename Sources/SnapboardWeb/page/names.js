// The display name others see: `?name=` in the address (for links and tests: it skips the question), else
// the name this device remembers (localStorage 'snapboard.name'), else asked once in a dialog.

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

/**
 * Resolves to the display name: the known one at once, else what the person types in the name dialog
 * (remembered for the next visit).
 */
export function displayName() {
  const known = knownName();
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
