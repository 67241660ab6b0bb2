// SnapboardAPI and APIError: the requests it makes (a fake fetch records them), what it makes of answers
// and failures, and the real server's access, listing, token and history endpoints through it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { APIError, SnapboardAPI, SnapboardClient } from '../../Sources/SnapboardWeb/lib/index.js';
import { baseBefore, probeAccess, socketAt } from '../../Sources/SnapboardWeb/lib/api.js';
import { serverBinary, startServer, until } from './support.mjs';

/** A fetch that records each request and answers with `answer(url, init)`: {status, body, type?} or an Error. */
function recorder(answer) {
  const requests = [];
  const fetch = async (url, init) => {
    requests.push({ url: String(url), method: init.method, headers: init.headers, body: init.body === undefined ? undefined : JSON.parse(init.body) });
    const a = answer(url, init);
    if (a instanceof Error) throw a;
    const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
    return new Response(text, { status: a.status, headers: { 'content-type': a.type ?? 'application/json' } });
  };
  return { requests, fetch };
}

describe('requests and answers (a fake fetch)', () => {
  test('each method asks its path with its query, the token as Bearer, and resolves to the parsed body', async () => {
    const r = recorder(() => ({ status: 200, body: { ok: true } }));
    const api = new SnapboardAPI({ base: 'https://board.test/', token: 'tok', fetch: r.fetch });
    assert.deepEqual(await api.access('team-1'), { ok: true });
    await api.listCanvases();
    await api.listCanvases({ prefix: 'team-', after: 'team-1', limit: 50 });
    await api.history('team 1', { after: 12, limit: 3 });
    await api.mintToken({ canvas: 'team-1', role: 'editor', ttl: 3600, name: 'Ada' });
    await api.mintToken({ canvas: 'team-*' });
    assert.deepEqual(r.requests.map((q) => [q.method, q.url]), [
      ['GET', 'https://board.test/v1/canvases/team-1/access'],
      ['GET', 'https://board.test/v1/canvases'],
      ['GET', 'https://board.test/v1/canvases?prefix=team-&after=team-1&limit=50'],
      ['GET', 'https://board.test/v1/canvases/team%201/history?after=12&limit=3'],
      ['POST', 'https://board.test/v1/tokens'],
      ['POST', 'https://board.test/v1/tokens'],
    ]);
    for (const q of r.requests) assert.equal(q.headers.authorization, 'Bearer tok');
    assert.deepEqual(r.requests[4].body, { canvas: 'team-1', role: 'editor', ttl: 3600, name: 'Ada' });
    assert.deepEqual(r.requests[5].body, { canvas: 'team-*', role: 'viewer' }, 'a viewer link unless asked');
    assert.equal(r.requests[4].headers['content-type'], 'application/json');
    const open = recorder(() => ({ status: 200, body: [] }));
    await new SnapboardAPI({ base: 'http://h', fetch: open.fetch }).listCanvases();
    assert.equal(open.requests[0].headers.authorization, undefined, 'no token, no Authorization');
  });

  test('a refusal throws an APIError with the status, the body\'s error, reason and message', async () => {
    const answers = [
      { status: 401, body: { error: 'unauthorized', reason: 'expired', message: 'the token expired' } },
      { status: 403, body: { error: 'forbidden', reason: 'origin', message: 'origin not allowed' } },
      { status: 404, body: { error: 'not_found', message: 'this server does not use access tokens' } },
      { status: 502, body: '<html>bad gateway</html>', type: 'text/html' },
      { status: 200, body: 'not json', type: 'text/plain' },
      new TypeError('fetch failed'),
    ];
    const r = recorder(() => answers.shift());
    const api = new SnapboardAPI({ base: 'http://h', fetch: r.fetch });
    const caught = [];
    for (let i = 0; i < 6; i++) caught.push(await api.access('c').then(() => assert.fail('resolved'), (e) => e));
    for (const e of caught) assert.ok(e instanceof APIError && e instanceof Error);
    assert.deepEqual(caught.map((e) => [e.status, e.code, e.reason]), [[401, 'unauthorized', 'expired'], [403, 'forbidden', 'origin'], [404, 'not_found', null],
      [502, 'http_502', null], [200, 'bad_response', null], [0, 'network', null]]);
    assert.equal(caught[0].message, 'the token expired');
    assert.equal(caught[2].message, 'this server does not use access tokens');
    assert.match(caught[5].message, /could not be reached \(fetch failed\)/);
    assert.equal(caught[0].name, 'APIError');
  });

  test('a client\'s api is the server of its ws(s) address, with its token, and follows setToken', async () => {
    const r = recorder(() => ({ status: 200, body: {} }));
    const client = new SnapboardClient({ url: 'wss://board.test:8443/proxy/v1/canvases/retro', token: 'a', fetch: r.fetch });
    assert.equal(client.api.base, 'https://board.test:8443/proxy');
    assert.equal(client.canvas, 'retro');
    client.setToken('b');
    await client.api.history(client.canvas);
    assert.deepEqual([r.requests[0].url, r.requests[0].headers.authorization], ['https://board.test:8443/proxy/v1/canvases/retro/history', 'Bearer b']);
    assert.equal(new SnapboardClient({ url: 'ws://h/elsewhere' }).api, null);
  });
});

describe('a canvas served by another node (a cluster\'s 307)', () => {
  test('a redirected answer moves the API\'s base to the node that answered, and the probe says where', async () => {
    const asked = [];
    const fetch = async (url) => {
      asked.push(url);
      return { ok: true, status: 200, redirected: true, url: 'http://proxy:8081/n/node2/v1/canvases/a%2Fb/access', text: async () => '{"role":"editor"}' };
    };
    const api = new SnapboardAPI({ base: 'http://proxy:8081', fetch });
    const outcome = await probeAccess(api, 'a/b', 5);
    assert.deepEqual(outcome, { status: 200, moved: 'http://proxy:8081/n/node2' });
    assert.equal(api.base, 'http://proxy:8081/n/node2');
    await api.access('a/b');
    assert.equal(asked[1], 'http://proxy:8081/n/node2/v1/canvases/a%2Fb/access');
  });

  test('an answer that was not redirected, or that went to an unrelated path, leaves the base alone', async () => {
    for (const answer of [{ redirected: false, url: 'http://elsewhere/x/v1/canvases/c/access' }, { redirected: true, url: 'http://elsewhere/login' }]) {
      const api = new SnapboardAPI({ base: 'http://node1:8080', fetch: async () => ({ ok: true, status: 200, ...answer, text: async () => '{}' }) });
      assert.deepEqual(await probeAccess(api, 'c', 5), { status: 200 });
      assert.equal(api.base, 'http://node1:8080');
    }
  });

  test('the new socket address keeps the scheme, the node\'s path and the old query', () => {
    assert.equal(baseBefore('https://h/n/node3/v1/canvases/c/access', '/v1/canvases/c/access'), 'https://h/n/node3');
    assert.equal(baseBefore('ftp://h/v1/canvases/c/access', '/v1/canvases/c/access'), null);
    assert.equal(socketAt('https://h/n/node3', 'a b', 'wss://h/v1/canvases/a%20b?token=t&name=x'), 'wss://h/n/node3/v1/canvases/a%20b?token=t&name=x');
    assert.equal(socketAt('http://h:81', 'c', 'ws://h:80/v1/canvases/c'), 'ws://h:81/v1/canvases/c');
  });
});

describe('against snapboard-server', () => {
  const secret = 'an-api-test-secret-of-more-than-32-bytes-long';
  const admin = 'an-admin-token-for-the-api-test-of-32-chars-or-more';
  const mint = (canvas, { ttl = '1h', role = 'editor', sub = 'ann-id', name } = {}) => execFileSync(serverBinary,
    ['token', '--canvas', canvas, '--ttl', ttl, '--role', role, '--sub', sub, '--secret', secret, ...(name ? ['--name', name] : [])]).toString().trim();
  const servers = [], clients = [];
  after(async () => {
    for (const c of clients) c.close();
    for (const s of servers) await s.stop();
  });
  const server = async (args) => { const s = await startServer({ args }); servers.push(s); return s; };
  /** Makes a canvas hold `n` shapes, committed by a client whose display name is `name`. */
  async function fill(srv, canvas, token, name, n = 1) {
    const c = new SnapboardClient({ url: srv.ws(canvas), token, name, pingInterval: 0 });
    clients.push(c);
    c.connect();
    await until(`${canvas} connected`, () => c.state === 'connected');
    for (let i = 0; i < n; i++) c.snap(64 + 96 * i, 64);
    await until(`${canvas} stored`, () => c.pending.ops.length === 0);
    return c;
  }

  test('access says what a token may do, and why not in words', async () => {
    const srv = await server(['--auth-secret', secret]);
    const api = (token) => new SnapboardAPI({ base: srv.http, token });
    const ok = await api(mint('acc-*', { role: 'viewer', sub: 'vic', name: 'Vic' })).access('acc-1');
    assert.deepEqual({ ...ok, expiresAt: typeof ok.expiresAt }, { canvas: 'acc-1', role: 'viewer', user: 'vic', name: 'Vic', expiresAt: 'number', tokens: true });
    assert.ok(Math.abs(ok.expiresAt - (Date.now() / 1000 + 3600)) < 120);
    for (const [token, reason] of [[undefined, 'missing'], ['garbage', 'malformed'], [mint('elsewhere'), 'wrong_canvas']]) {
      const e = await api(token).access('acc-1').then(() => assert.fail(`${reason}: resolved`), (x) => x);
      assert.deepEqual([e.status, e.code, e.reason], [401, 'unauthorized', reason]);
      assert.ok(e.message.length > 0);
    }
    // An Origin the server does not allow (Node's fetch may send one; a page's own origin is allowed).
    const foreign = (url, init) => fetch(url, { ...init, headers: { ...init.headers, origin: 'https://elsewhere.example' } });
    const refused = await new SnapboardAPI({ base: srv.http, token: mint('acc-1'), fetch: foreign }).access('acc-1').then(() => null, (x) => x);
    assert.deepEqual([refused?.status, refused?.code, refused?.reason], [403, 'forbidden', 'origin']);
    const open = await server([]);
    assert.deepEqual(await new SnapboardAPI({ base: open.http }).access('anything'),
      { canvas: 'anything', role: 'editor', user: null, name: null, expiresAt: null, tokens: false }, 'a server that requires no token');
  });

  test('the listing takes an access token and shows only the canvases its claim covers; the admin token shows all', async () => {
    const srv = await server(['--auth-secret', secret, '--admin-token', admin]);
    for (const canvas of ['team-a', 'team-b', 'other']) await fill(srv, canvas, mint(canvas), 'ann');
    const ids = async (token, options) => (await new SnapboardAPI({ base: srv.http, token }).listCanvases(options)).canvases.map((c) => c.id);
    assert.deepEqual(await ids(mint('team-*')), ['team-a', 'team-b']);
    assert.deepEqual(await ids(mint('team-b', { role: 'viewer' })), ['team-b']);
    assert.deepEqual(await ids(mint('nothing-here')), []);
    assert.deepEqual(await ids(admin), ['other', 'team-a', 'team-b']);
    const listed = await new SnapboardAPI({ base: srv.http, token: mint('team-a') }).listCanvases();
    assert.deepEqual(Object.keys(listed).sort(), ['canvases', 'next'], 'the fields CanvasList declares');
    for (const key of Object.keys(listed.canvases[0])) assert.ok(['id', 'seq', 'changedAt', 'loaded', 'shapes'].includes(key), `CanvasSummary declares ${key}`);
    const page = await new SnapboardAPI({ base: srv.http, token: admin }).listCanvases({ limit: 1, after: 'other' });
    assert.deepEqual([page.canvases.map((c) => c.id), page.next], [['team-a'], 'team-a']);
    const refused = await ids(undefined).then(() => null, (e) => e);
    assert.deepEqual([refused?.status, refused?.reason], [401, 'missing']);
  });

  test('mintToken: the admin token mints any link; an editor mints at most its own role and expiry; a viewer none', async () => {
    const srv = await server(['--auth-secret', secret, '--admin-token', admin]);
    const byAdmin = await new SnapboardAPI({ base: srv.http, token: admin }).mintToken({ canvas: 'mint-1', role: 'editor', ttl: 3600, name: 'Guest' });
    assert.deepEqual(Object.keys(byAdmin).sort(), ['canvas', 'expiresAt', 'link', 'role', 'token'], 'the fields MintedToken declares');
    assert.deepEqual([byAdmin.canvas, byAdmin.role, byAdmin.link], ['mint-1', 'editor', `/c/mint-1?token=${byAdmin.token}`]);
    assert.ok(Math.abs(byAdmin.expiresAt - (Date.now() / 1000 + 3600)) < 120);
    const access = await new SnapboardAPI({ base: srv.http, token: byAdmin.token }).access('mint-1');
    assert.deepEqual([access.role, access.name], ['editor', 'Guest']);
    // The minted link opens the canvas.
    const c = await fill(srv, 'mint-1', byAdmin.token, 'x');
    assert.equal(c.role, 'editor');

    const editor = new SnapboardAPI({ base: srv.http, token: mint('mint-1', { ttl: '10m' }) });
    const viewerLink = await editor.mintToken({ canvas: 'mint-1', role: 'viewer', ttl: 86400 });
    assert.equal(viewerLink.role, 'viewer');
    assert.ok(viewerLink.expiresAt <= Date.now() / 1000 + 600 + 5, 'no later than the minting token');
    const prefix = await new SnapboardAPI({ base: srv.http, token: admin }).mintToken({ canvas: 'mint-*', role: 'viewer' });
    assert.equal(prefix.link, null, 'a prefix has no single link');
    const refusals = [
      [editor, { canvas: 'elsewhere', role: 'viewer' }],
      [new SnapboardAPI({ base: srv.http, token: viewerLink.token }), { canvas: 'mint-1', role: 'viewer' }],
      [new SnapboardAPI({ base: srv.http }), { canvas: 'mint-1', role: 'viewer' }],
    ];
    for (const [api, body] of refusals) {
      const e = await api.mintToken(body).then(() => null, (x) => x);
      assert.ok(e instanceof APIError && [401, 403].includes(e.status), `${JSON.stringify(body)}: ${e?.status} ${e?.message}`);
    }
    const bad = await new SnapboardAPI({ base: srv.http, token: admin }).mintToken({ canvas: 'mint-1', role: 'viewer', ttl: 5 }).then(() => null, (x) => x);
    assert.deepEqual([bad?.status, bad?.code], [400, 'bad_request']);
    const none = await server([]);
    const e = await new SnapboardAPI({ base: none.http }).mintToken({ canvas: 'x', role: 'viewer' }).then(() => null, (x) => x);
    assert.deepEqual([e?.status, e?.code, e?.message], [404, 'not_found', 'this server does not use access tokens']);
  });

  test('history names the author of each commit', async () => {
    const srv = await server(['--auth-secret', secret]);
    await fill(srv, 'hist', mint('hist', { sub: 'ann-id', name: 'Ann' }), 'ignored', 2);
    const page = await new SnapboardAPI({ base: srv.http, token: mint('hist', { role: 'viewer' }) }).history('hist', { limit: 10 });
    assert.equal(page.canvas, 'hist');
    assert.deepEqual(Object.keys(page).sort(), ['canvas', 'next', 'oldest', 'ops'], 'the fields HistoryPage declares');
    for (const key of Object.keys(page.ops[0])) assert.ok(['seq', 'at', 'client', 'name', 'opId', 'undoes', 'redoes', 'op'].includes(key), `HistoryEntry declares ${key}`);
    assert.deepEqual(page.ops.map((o) => [o.seq, o.name, o.op.type]), [[1, 'Ann', 'create'], [2, 'Ann', 'create']]);
    const after1 = await new SnapboardAPI({ base: srv.http, token: mint('hist') }).history('hist', { after: 1 });
    assert.deepEqual(after1.ops.map((o) => o.seq), [2]);
  });
});
