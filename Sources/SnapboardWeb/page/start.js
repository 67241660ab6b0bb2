// The start page: open a canvas by name, or a fresh one with a random name.
const form = document.getElementById('open');
const input = document.getElementById('canvas');
const random = document.getElementById('random');

const bytes = new Uint8Array(5);
crypto.getRandomValues(bytes);
random.href = `/c/board-${[...bytes].map((b) => b.toString(36).padStart(2, '0')).join('').slice(0, 8)}`;

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!input.reportValidity()) return;
  location.href = `/c/${encodeURIComponent(input.value)}`;
});
