// The server's HTTP API as an app needs it beside the connection: what a token may do, the canvases it
// may see, new access links, and a canvas's history (PROTOCOL.md, "HTTP"; Protocol/openapi.yaml). And
// what the client reads of its address and token to ask it.

/**
 * A refusal or failure of an HTTP request: `status` (0 when the server could not be reached), `code` (the
 * body's `error`, or `network`, or `http_STATUS` for a body that is not the server's JSON), `reason` (a 401
 * or 403 body's `reason`, else null) and `message` (the server's words, or what went wrong).
 */
export class APIError extends Error {
  constructor(status, code, reason, message) {
    super(message);
    this.name = 'APIError';
    this.status = status;
    this.code = code;
    this.reason = reason;
  }
}

/**
 * The HTTP API of one Snapboard server. Each method resolves to the parsed JSON body, or throws an
 * `APIError`. `token` (an access token or the admin token) goes as `Authorization: Bearer`.
 */
export class SnapboardAPI {
  /**
   * @param {object} [options]
   * @param {string} [options.base]  the server, `http(s)://host:port` (default: '', this page's origin)
   * @param {string} [options.token]  an access token or the admin token
   * @param {Function} [options.fetch]  a fetch function (default globalThis.fetch)
   */
  constructor({ base = '', token, fetch } = {}) {
    this.base = base.replace(/\/+$/, '');
    this.token = token;
    this.fetch = fetch ?? ((...args) => globalThis.fetch(...args));
  }

  /** What the token may do on `canvas`: `{canvas, role, user, name, expiresAt, tokens}`; a 401 says why not. */
  access(canvas) {
    return this.#request('GET', `/v1/canvases/${encodeURIComponent(canvas)}/access`);
  }

  /** The stored canvases the token may see, in id order: `{canvases: [{id, seq, changedAt, loaded, shapes?}], next}`. */
  listCanvases({ prefix, after, limit } = {}) {
    return this.#request('GET', `/v1/canvases${query({ prefix, after, limit })}`);
  }

  /**
   * Mints an access token (a server with a token secret, authorised by the admin token or an editor's
   * token that covers `canvas`): `{token, canvas, role, expiresAt, link}`. `role` is 'viewer' unless
   * given; `ttl` in seconds (the server's default: 7 days).
   */
  mintToken({ canvas, role = 'viewer', ttl, name, sub }) {
    return this.#request('POST', '/v1/tokens', { canvas, role, ttl, name, sub });
  }

  /** The logged commits of `canvas` after seq `after`, oldest first: `{canvas, oldest, ops: [{seq, at, client, name, opId, op}], next}`. */
  history(canvas, { after, limit } = {}) {
    return this.#request('GET', `/v1/canvases/${encodeURIComponent(canvas)}/history${query({ after, limit })}`);
  }

  /**
   * A request the server sent on elsewhere (307: in a cluster, the canvas is served by another node) moves
   * this API's base there, so that later requests, and the client's next socket, go straight to it.
   */
  #follow(response, path) {
    if (!response.redirected || typeof response.url !== 'string') return;
    const moved = baseBefore(response.url, path.split('?')[0]);
    if (moved) this.base = moved;
  }

  async #request(method, path, body) {
    const headers = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response;
    try {
      response = await this.fetch(`${this.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      throw new APIError(0, 'network', null, `The server could not be reached (${error?.message ?? error}).`);
    }
    this.#follow(response, path);
    const text = await response.text();
    let parsed;
    try { parsed = text === '' ? null : JSON.parse(text); } catch { parsed = undefined; }
    if (response.ok && parsed !== undefined) return parsed;
    if (response.ok) throw new APIError(response.status, 'bad_response', null, 'The server answered with something that is not JSON.');
    const fields = parsed && typeof parsed === 'object' ? parsed : {};
    throw new APIError(response.status, typeof fields.error === 'string' ? fields.error : `http_${response.status}`,
      typeof fields.reason === 'string' ? fields.reason : null,
      typeof fields.message === 'string' ? fields.message : `The server answered ${response.status}.`);
  }
}

/** `?a=1&b=2` of the parameters that are set, or ''. */
function query(params) {
  const set = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return set.length === 0 ? '' : `?${new URLSearchParams(set.map(([k, v]) => [k, String(v)]))}`;
}

/** The base of `url` when its path ends with `path` (the part a request named), else null. */
export function baseBefore(url, path) {
  try {
    const u = new URL(url);
    if (!/^https?:$/.test(u.protocol) || !u.pathname.endsWith(path)) return null;
    return `${u.protocol}//${u.host}${u.pathname.slice(0, u.pathname.length - path.length)}`;
  } catch {
    return null;
  }
}

/** The ws(s):// address of `canvas` at the HTTP base `base`, keeping the query of `url` (the old address). */
export function socketAt(base, canvas, url) {
  const u = new URL(base);
  const query = (() => { try { return new URL(url).search; } catch { return ''; } })();
  return `${u.protocol === 'https:' ? 'wss:' : 'ws:'}//${u.host}${u.pathname.replace(/\/+$/, '')}/v1/canvases/${encodeURIComponent(canvas)}${query}`;
}

/** The server's HTTP base and the canvas id of a ws(s)://host/…/v1/canvases/{id} address, or null. */
export function httpOf(url) {
  try {
    const u = new URL(url);
    const at = u.pathname.lastIndexOf('/v1/canvases/');
    if (at < 0 || !/^wss?:$/.test(u.protocol)) return null;
    const canvas = decodeURIComponent(u.pathname.slice(at + '/v1/canvases/'.length));
    return { base: `${u.protocol === 'wss:' ? 'https:' : 'http:'}//${u.host}${u.pathname.slice(0, at)}`, canvas };
  } catch {
    return null;
  }
}

/**
 * Asks `api` what its token may do on `canvas`, within `seconds`: `{status, reason, moved}`, status 0 when no
 * answer came (the server down, or slow); `moved`, the new base, when the server sent the request on to
 * the node that serves the canvas now (a cluster).
 */
export async function probeAccess(api, canvas, seconds) {
  const before = api.base;
  const outcome = await probeWithin(api, canvas, seconds);
  return api.base !== before ? { ...outcome, moved: api.base } : outcome;
}

async function probeWithin(api, canvas, seconds) {
  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(resolve, seconds * 1000, { status: 0 }); });
  const answer = api.access(canvas).then(() => ({ status: 200 }), (e) => (e instanceof APIError ? { status: e.status, reason: e.reason } : { status: 0 }));
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The `role` claim of a JWT, read without checking it (the server checks it), or null. */
export function roleClaim(token) {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const role = JSON.parse(atob(payload.padEnd(Math.ceil(payload.length / 4) * 4, '='))).role;
    return role === 'viewer' || role === 'editor' ? role : null;
  } catch {
    return null;
  }
}
