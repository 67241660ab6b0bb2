// What a stopped client says to its user: each problem in words, what is wrong and what to do. Pure.

/**
 * The words for each problem code: the `reason` of an HTTP 401 (PROTOCOL.md, P1), `origin` (403), and the
 * client's own codes for the close codes that end a session.
 */
const words = {
  missing: 'This canvas needs an access link, and this page was opened without one. Open the link the canvas owner shared with you, or ask them for one.',
  malformed: 'The access link is damaged: its token cannot be read. Open the whole link again, or ask the canvas owner for a new one.',
  bad_signature: 'The access link was not issued for this server. Ask the canvas owner for a new link.',
  expired: 'Your access link has expired. Ask the canvas owner for a new link.',
  not_yet_valid: 'Your access link is not valid yet. Check the clock of this device, or try again later.',
  wrong_canvas: 'Your access link is for another canvas. Open the link made for this canvas, or ask its owner for one.',
  wrong_audience: 'Your access link is meant for another service. Ask the canvas owner for a link to this one.',
  wrong_issuer: 'Your access link was issued by someone this server does not trust. Ask the canvas owner for a new link.',
  unauthorized: 'The server refused your access link. Ask the canvas owner for a new link.',
  origin: 'This server does not take connections from the site this page was loaded from. Open the board from the server\'s own address, or ask its operator to allow this site.',
  forbidden: 'The server refused this connection. Ask its operator why.',
  token_expired: 'Your access link expired during the session, so the board is read-only now. Open a new link from the canvas owner to go on editing.',
  canvas_deleted: 'This canvas was deleted, with everything on it. Open another canvas, or start a new one.',
  viewer_cannot_create: 'This canvas does not exist, and a view-only link cannot create it. Check the canvas name, or ask the canvas owner for an editor link.',
  storage_full: 'The server holds as many canvases as it may, so it cannot create this one. Open an existing canvas, or ask the server\'s operator to make room.',
};

/** The problem codes the library has words for. */
export const problemCodes = Object.freeze(Object.keys(words));

/**
 * A problem as `client.problem` holds it: `{code, message}`, the message in words saying what is wrong and
 * what to do. A code without words of its own (a 401 reason of a newer server) gets those of `unauthorized`.
 */
export function problemFor(code) {
  return { code, message: words[code] ?? words.unauthorized };
}
