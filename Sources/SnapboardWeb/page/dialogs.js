// Small pieces the page's dialogs and banners share: opening a <dialog> with its close button, copy
// buttons, and the field where a person pastes a new link or token.

/** Opens `dialog` modally (once), wiring `closeId`'s button to close it; focus returns to `back` after. */
export function openDialog(dialog, { closeId, back } = {}) {
  if (closeId && !dialog.dataset.wired) {
    dialog.dataset.wired = 'yes';
    document.getElementById(closeId).addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => back?.focus());
  }
  if (!dialog.open) dialog.showModal();
}

/**
 * Copies `text` to the clipboard; resolves to true when it did. Falls back to selecting `field` and the
 * document's copy command where the Clipboard API is refused (a page not on https or localhost).
 */
export async function copyText(text, field) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!field) return false;
    field.focus();
    field.select();
    return document.execCommand('copy');
  }
}

/** Wires every `[data-copy=ID]` button under `root` to copy the value of the field ID, saying "Copied". */
export function wireCopyButtons(root) {
  for (const b of root.querySelectorAll('button[data-copy]')) {
    if (b.dataset.wired) continue;
    b.dataset.wired = 'yes';
    b.addEventListener('click', async () => {
      const field = document.getElementById(b.dataset.copy);
      const copied = await copyText(field.value, field);
      b.textContent = copied ? 'Copied' : 'Select and copy';
      setTimeout(() => { b.textContent = 'Copy'; }, 2000);
    });
  }
}

/** A read-only field holding `value` with a Copy button beside it. */
export function copyableField(id, value, label) {
  const wrap = document.createElement('div');
  wrap.className = 'copyable';
  const field = document.createElement('input');
  field.id = id;
  field.readOnly = true;
  field.value = value;
  field.setAttribute('aria-label', label);
  const b = document.createElement('button');
  b.type = 'button';
  b.dataset.copy = id;
  b.textContent = 'Copy';
  wrap.append(field, b);
  wireCopyButtons(wrap);
  return wrap;
}

/**
 * A small form to paste a new link (…/c/{canvas}?token=…) or a bare token; `onToken(token)` gets the
 * token. Shown in the banners of the states a new token ends.
 */
export function tokenForm(onToken) {
  const form = document.createElement('form');
  form.className = 'token-form';
  const field = document.createElement('input');
  field.name = 'token';
  field.required = true;
  field.autocomplete = 'off';
  field.spellcheck = false;
  field.placeholder = 'Paste a new link or token';
  field.setAttribute('aria-label', 'New link or access token');
  const go = document.createElement('button');
  go.type = 'submit';
  go.textContent = 'Use it';
  form.append(field, go);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = tokenFrom(field.value);
    if (token) onToken(token);
    else field.setCustomValidity('That is neither a link with a token nor a token.');
    field.reportValidity();
  });
  field.addEventListener('input', () => field.setCustomValidity(''));
  return form;
}

/** The token in a pasted link's `token` parameter, or the pasted text itself when it looks like a JWT. */
export function tokenFrom(text) {
  const trimmed = text.trim();
  try {
    const url = new URL(trimmed, location.origin);
    const token = url.searchParams.get('token');
    if (token) return token;
  } catch { /* not a link: maybe the bare token */ }
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(trimmed) ? trimmed : null;
}
