// What the library tests against a real server share: one server per test file, clients closed and the
// server stopped after it, and two clients, ann and ben, on one canvas, with their answers by op id.
import { after } from 'node:test';
import { SnapboardClient } from '../../Sources/SnapboardWeb/lib/index.js';
import { startServer, until } from './support.mjs';

/**
 * Call once at a test file's top level. `open(name, canvas)` connects a client (the server starts with the
 * first); `pair(canvas, { kinds })` connects ann and ben and waits for both, and returns them with the
 * server, `answers` (every message of `kinds`, by default acks and rejects, by op id) and `answer(id)`, which
 * waits for the answer to op `id`.
 */
export function librarySuite() {
  let server = null;
  const clients = [];
  after(async () => {
    for (const client of clients) client.close();
    await server?.stop();
  });
  const start = async () => (server ??= await startServer());
  const open = async (name, canvas) => {
    const client = new SnapboardClient({ url: (await start()).ws(canvas), name, pingInterval: 0 });
    client.connect();
    clients.push(client);
    return client;
  };
  const pair = async (canvas, { kinds = ['ack', 'reject'] } = {}) => {
    const ann = await open('ann', canvas), ben = await open('ben', canvas);
    await until('both connected', () => ann.state === 'connected' && ben.state === 'connected');
    const answers = new Map();
    for (const client of [ann, ben]) for (const kind of kinds) client.on(kind, (m) => { if (m.id) answers.set(m.id, m); });
    const answer = (id) => until(`the answer to ${id}`, () => answers.get(id));
    return { server, ann, ben, answers, answer };
  };
  return { open, pair };
}
