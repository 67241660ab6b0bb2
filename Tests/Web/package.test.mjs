// The library as a package (Sources/SnapboardWeb/lib): package.json; index.d.ts against the code and
// Protocol/schema/, read by regular expressions (its header gives the format they rely on), and by tsc
// where it is installed; importing it from Node by name and by path; and `npm pack`.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as library from '../../Sources/SnapboardWeb/lib/index.js';
import { identity } from '../../Sources/SnapboardWeb/lib/gesture-math.js';

const lib = fileURLToPath(new URL('../../Sources/SnapboardWeb/lib/', import.meta.url));
const read = (name) => readFileSync(join(lib, name), 'utf8');
const pkg = JSON.parse(read('package.json'));
const temporary = [];
const scratch = () => { const dir = mkdtempSync(join(tmpdir(), 'snapboard-package-')); temporary.push(dir); return dir; };
after(() => { for (const dir of temporary) rmSync(dir, { recursive: true, force: true }); });

/** The text between the bracket at `open` and its match. The `>` of `=>` is no bracket. */
function enclosed(text, open) {
  for (let i = open, depth = 0; i < text.length; i++) {
    if (text[i] === '>' && text[i - 1] === '=') continue;
    if ('([{<'.includes(text[i])) depth++;
    if (')]}>'.includes(text[i]) && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error(`no closing bracket in ${text.slice(open, open + 80)}`);
}

/** `text` split at `separator` where no bracket is open; the `=` of `=>` or `==` does not split. */
function splitTop(text, separator) {
  const parts = [];
  let depth = 0, start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '>' && text[i - 1] === '=') continue;
    if ('([{<'.includes(c)) depth++;
    else if (')]}>'.includes(c)) depth--;
    else if (c === separator && depth === 0 && !(c === '=' && '=>'.includes(text[i + 1]))) { parts.push(text.slice(start, i)); start = i + 1; }
  }
  return [...parts, text.slice(start)].map((p) => p.trim()).filter((p) => p !== '');
}

/** A declared parameter list, `a: T, b?: U`, as [{name, optional}]. */
const declaredParams = (inner) => splitTop(inner, ',').map((p) => /^(\.\.\.)?(\w+)(\?)?:/.exec(p) ?? assert.fail(`a parameter the test cannot read: ${p}`))
  .map((m) => ({ name: m[2], optional: !!m[3] || !!m[1] }));

/** A class or interface member: one line, indented by two spaces. */
function member(line) {
  let m;
  if ((m = /^ {2}constructor\(/.exec(line))) return { name: 'constructor', params: declaredParams(enclosed(line, m[0].length - 1)) };
  if ((m = /^ {2}get (\w+)\(\): (.+);$/.exec(line))) return { name: m[1], getter: true, type: m[2] };
  if ((m = /^ {2}(\w+)(?:<[^(]*>)?\(/.exec(line))) return { name: m[1], params: declaredParams(enclosed(line, m[0].length - 1)) };
  if ((m = /^ {2}(?:readonly )?(\w+)(\?)?: (.+);$/.exec(line))) return { name: m[1], optional: !!m[2], type: m[3] };
  return null;
}

/** index.d.ts as run-time values (classes, functions, consts), interfaces and type aliases. */
function parseDeclarations(text) {
  const values = new Map(), interfaces = new Map(), aliases = new Map();
  let body = null, alias = null, m;
  for (const line of text.split('\n')) {
    // A type alias over several lines runs to the line that ends with `;`.
    if (alias) { alias.text += ` ${line.trim()}`; alias = line.endsWith(';') ? null : alias; continue; }
    if (body) {
      const internal = /^ {2}\/\/ internal: (.+)$/.exec(line);
      if (line === '}') body = null;
      else if (internal) body.internal.push(...internal[1].split(',').map((s) => s.trim()));
      else if (!/^\s*(\/\/|\/\*\*|\*)/.test(line)) { // not a comment: a member
        const m = member(line);
        assert.ok(m, `index.d.ts: a member the test cannot read: ${line}`);
        body.members.set(m.name, m);
      }
      continue;
    }
    if ((m = /^export declare class (\w+)(?: extends \w+)? \{$/.exec(line))) values.set(m[1], body = { kind: 'class', members: new Map(), internal: [] });
    else if ((m = /^export interface (\w+)(?: extends [\w, ]+)? \{$/.exec(line))) interfaces.set(m[1], body = { members: new Map(), internal: [] });
    else if ((m = /^export declare function (\w+)(?:<[^(]*>)?\(/.exec(line))) values.set(m[1], { kind: 'function', params: declaredParams(enclosed(line, m[0].length - 1)) });
    else if ((m = /^export declare const (\w+): (.+);$/.exec(line))) values.set(m[1], { kind: 'const', type: m[2] });
    else if ((m = /^export type (\w+) =(.*)$/.exec(line))) { aliases.set(m[1], alias = { text: m[2].trim() }); if (line.endsWith(';')) alias = null; }
    else assert.ok(!/^export\b/.test(line), `index.d.ts: an export the test cannot read: ${line}`);
  }
  for (const a of aliases.values()) a.text = a.text.replace(/;$/, '').replace(/^\|\s*/, '');
  return { values, interfaces, aliases };
}

const d = parseDeclarations(read('index.d.ts'));
/** Checks declared parameters against a function's source: count, names, defaults, and `fn.length`. */
function checkParams(label, declared, fn, source = fn.toString()) {
  const actual = splitTop(enclosed(source, source.indexOf('(')), ',').map((p) => {
    const [target, ...rest] = splitTop(p, '='); // a destructured parameter has no name
    return { name: /^\w+$/.test(target) ? target : null, defaulted: rest.length > 0 };
  });
  assert.equal(declared.length, actual.length, `${label}: ${declared.length} parameters declared, ${actual.length} in the code`);
  for (const [i, p] of actual.entries()) {
    if (p.name) assert.equal(declared[i].name, p.name, `${label}: parameter ${i + 1}`);
    if (p.defaulted) assert.ok(declared[i].optional, `${label}: ${declared[i].name} has a default, so it is optional`);
  }
  // Without defaults, the arity is every parameter; with them, those before the first default.
  const firstDefault = actual.findIndex((p) => p.defaulted);
  assert.equal(fn.length, firstDefault < 0 ? declared.length : firstDefault, `${label}: arity`);
}

/** The string literals of a union type, through aliases: `ClientState` → ['connecting', …]; undefined for a non-literal. */
const literals = (type) => splitTop(type, '|').flatMap((t) =>
  /^'[^']*'$/.test(t) ? [t.slice(1, -1)] : d.aliases.has(t) ? literals(d.aliases.get(t).text) : [undefined]);
/** The interfaces a type names, through aliases, `|` and `&`: `ClientMessage` → OpEnvelope, SnapOp, … */
const interfacesOf = (type) => splitTop(type, '|').flatMap((t) => splitTop(t, '&')).flatMap((t) =>
  d.interfaces.has(t) ? [t] : d.aliases.has(t) ? interfacesOf(d.aliases.get(t).text) : []);

test('package.json names the package, its version, its entry with types, its files, and no dependencies', () => {
  assert.match(pkg.name, /^(@snapboard\/client|snapboard-client)$/);
  assert.match(pkg.version, /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, 'a semver version');
  const { type, main, types, sideEffects, engines, license } = pkg;
  assert.deepEqual({ type, main, types, sideEffects, engines, license }, { type: 'module', main: './index.js', types: './index.d.ts', sideEffects: false, engines: { node: '>=20.10' }, license: 'UNLICENSED' });
  assert.deepEqual(Object.keys(pkg).filter((key) => /dependencies$/i.test(key)), [], 'no dependencies of any kind');
  assert.deepEqual(pkg.exports['.'], { types: './index.d.ts', default: './index.js' }, 'types first: TypeScript takes the first condition that matches');
  assert.ok(read('README.md').includes("from './snapboard-client/index.js'"), 'the README imports the package by path');
});

test('index.d.ts declares every export of index.js, and nothing index.js does not export', () => {
  assert.deepEqual([...d.values.keys()].sort(), Object.keys(library).sort());
  for (const name of [...d.interfaces.keys(), ...d.aliases.keys()]) assert.ok(!(name in library), `${name} is declared as a type but is a value`);
  for (const [name, decl] of d.values) {
    const value = library[name];
    if (decl.kind !== 'const') assert.equal(/^class\b/.test(Function.prototype.toString.call(value)), decl.kind === 'class', `${name} is a ${decl.kind}`);
    if (decl.kind === 'function') checkParams(name, decl.params, value);
    // A const's literal type (`4`, `'x'`) must be its value; `number` or `string`, its type.
    if (decl.kind === 'const' && /^-?[\d.]+$/.test(decl.type)) assert.equal(value, Number(decl.type), name);
    else if (decl.kind === 'const' && /^'[^']*'$/.test(decl.type)) assert.equal(value, decl.type.slice(1, -1), name);
    // Any other declared type (`Readonly<…>`, a record) is an object's.
    else if (decl.kind === 'const') assert.equal(typeof value, ['number', 'string', 'boolean'].includes(decl.type) ? decl.type : 'object', name);
  }
});

/** One cheap instance of every exported class, for the fields its constructor sets. */
const newClient = () => new library.SnapboardClient({ url: 'ws://127.0.0.1:9/v1/canvases/t' });
const samples = { SnapboardClient: newClient, Gesture: () => new library.Gesture(newClient(), 'move', 's1'), Replica: () => new library.Replica(),
  PendingOps: () => new library.PendingOps('p'), ReconnectPolicy: () => new library.ReconnectPolicy(), Viewport: () => new library.Viewport(),
  SnapboardAPI: () => new library.SnapboardAPI({ base: 'http://127.0.0.1:9' }), APIError: () => new library.APIError(401, 'unauthorized', 'expired', 'no') };

test('each declared class lists exactly its public methods and fields, with the parameters the code takes', () => {
  for (const [name, decl] of [...d.values].filter(([, v]) => v.kind === 'class')) {
    const cls = library[name];
    assert.ok(samples[name], `the test needs a sample instance of ${name}`);
    const fields = Object.keys(samples[name]());
    // Its own prototype's and those it inherits (SnapboardClient's ops are Editing's), nearest first.
    const chain = [];
    const native = (p) => /\[native code\]/.test(Function.prototype.toString.call(p.constructor));
    for (let p = cls.prototype; p && !native(p); p = Object.getPrototypeOf(p)) chain.push(p);
    const proto = [...new Set(chain.flatMap((p) => Object.getOwnPropertyNames(p)))].filter((k) => k !== 'constructor');
    for (const [key, m] of [...decl.members].filter(([k]) => k !== 'constructor')) {
      const descriptor = chain.map((p) => Object.getOwnPropertyDescriptor(p, key)).find(Boolean);
      if (m.params) assert.equal(typeof descriptor?.value, 'function', `${name}.${key} is declared as a method`);
      if (m.params) checkParams(`${name}.${key}`, m.params, descriptor.value);
      else if (m.getter) assert.ok(descriptor?.get, `${name}.${key} is declared as a getter`);
      else assert.ok(fields.includes(key), `${name}.${key} is declared as a field of an instance`);
    }
    for (const method of proto) assert.ok(decl.members.has(method), `${name}.${method} is public but not declared`);
    for (const field of fields) assert.ok(decl.members.has(field) || decl.internal.includes(field), `${name}.${field}: declare it, or list it in \`// internal:\``);
    for (const field of decl.internal) assert.ok(fields.includes(field), `${name}: \`// internal: ${field}\` names no field`);
    const ctor = decl.members.get('constructor')?.params ?? [];
    const source = /\bconstructor\s*\(/.exec(cls.toString());
    if (source) checkParams(`new ${name}`, ctor, cls, cls.toString().slice(source.index));
    else assert.equal(ctor.length, 0, `${name} has no constructor`);
  }
});

/** A socket that the test drives: it records what the client writes. */
class FakeSocket {
  constructor(url) { Object.assign(this, { url, readyState: 1, sent: [] }); FakeSocket.last = this; }
  send(text) { this.sent.push(JSON.parse(text)); }
}
const shape = (id) => ({ id, kind: 'dot', x: 10, y: 10, w: 24, h: 24, scale: 1, rotation: 0, fill: { h: 0, s: 0, b: 0, a: 1 }, hatch: 'none', z: 0 });

/** A client through a whole session: every kind of message in, every method out, offline, and the resend. */
function session() {
  const client = new library.SnapboardClient({ url: 'ws://h/v1/canvases/t', name: 'ann', token: 't', zoom: 2, WebSocket: FakeSocket, schedule: (fn) => fn(), random: () => 0 });
  const events = new Set(), emit = client.emit.bind(client);
  client.emit = (event, value) => { events.add(event); emit(event, value); };
  client.connect();
  const socket = FakeSocket.last, receive = (m) => socket.onmessage({ data: JSON.stringify(m) });
  receive({ type: 'welcome', protocol: 1, revision: 4, session: 1, canvas: 't', seq: 3, epoch: '00000000000000e1', resumed: false, grid: { width: 100, height: 80, x: { pitch: 10 }, y: { pitch: 10 } }, snapping: { threshold: 8, release: 12, objects: true, grid: true, gaps: true, angleStep: 0.26, angleTolerance: 0.05 }, shapes: [shape('a'), shape('b')], sessions: [{ session: 1, name: 'ann', color: '#112233' }], leases: {} });
  receive([{ type: 'delta', seq: 4, by: 1, ops: [], shapes: [shape('c')], removed: [], cleared: false, events: [{ type: 'guide', axis: 'x', at: 5, from: 0, to: 9, target: 'a' }, { type: 'haptic', style: 'light', reason: 'edge' }], live: false },
    { type: 'presence', event: 'join', session: 2, name: 'ben', color: '#445566', leases: {} }, { type: 'cursors', cursors: [{ session: 2, x: 1, y: 2 }] }, { type: 'pong', t: 1 }]);
  const ids = [client.snap(1, 2, { kind: 'star', points: 6 }), client.snap(1, 2), client.clear(), client.delete(['c']), client.undo(), client.redo()];
  const gestures = [['move', 'a', { dx: 1, dy: 2 }, { dx: 3, dy: 4 }], ['scale', 'b', { factor: 2, ax: 1, ay: 1, radians: 0.1 }], ['rotate', 'b', null, { radians: 1 }]];
  for (const [kind, id, update, end] of gestures) { const g = client.gesture(kind, id); if (update) g.update(update); g.end(end); }
  client.style(['a', 'b'], { fill: 'red', stroke: '#00AA11', strokeWidth: 2, opacity: 0.5, fontSize: 24 });
  client.text('a', 'one shot');
  client.text('b', undefined, 'begin');
  client.text('b', 'draft', 'update');
  client.text('b', 'done', 'end');
  client.nudge(['a', 'b'], 32, 0);
  client.nudge(['c'], 0, -32, { snap: true });
  client.connector({ shape: 'a', anchor: 'right' }, { x: 60, y: 40 }, { kind: 'line', shapeId: 'l1', stroke: 'blue', strokeWidth: 2.5, text: 'to' });
  client.connector({ shape: 'a', u: 0.25, v: -0.5 }, { shape: 'b', anchor: 'left' });
  const end = client.endpoint('c', 'to');
  end.update({ dx: 5, dy: 6 });
  end.end({ dx: 7, dy: 8 });
  client.cursor(5, 6);
  client.cursor();
  client.setZoom(3);
  client.ping();
  receive([{ type: 'ack', id: ids[0], seq: 5 }, { type: 'reject', id: ids[1], code: 'out_of_bounds', message: 'no' }, { type: 'error', code: 'bad_message', message: 'no', id: ids[2] }]);
  socket.onclose({ code: 1006 });
  client.gesture('move', 'a').end({ dx: 1, dy: 1 }); // offline: it waits as a one-shot op
  client.close();
  return { events, sent: [...socket.sent, ...client.pending.toResend(client.replica)] };
}

test('the client emits exactly the declared events, and its states and gesture kinds are the declared ones', () => {
  const { events } = session();
  const named = [...['client.js', 'gesture.js', 'recovery.js'].map(read).join('\n').matchAll(/\bemit\('(\w+)'/g)].map((m) => m[1]);
  assert.deepEqual([...new Set([...events, ...named])].sort(), [...d.interfaces.get('SnapboardClientEvents').members.keys()].sort());
  // The states client.js sets itself, and those the decisions of states.js lead to.
  const states = [...read('client.js').matchAll(/(?:#setState\(|this\.state = )'(\w+)'/g), ...read('states.js').matchAll(/\bstate: '(\w+)'/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(states)].sort(), literals('ClientState').sort());
  assert.deepEqual(Object.keys(identity).sort(), literals('GestureKind').sort());
});

/** Does `value` have the declared type? Primitives, string literals and arrays of primitives; anything else passes. */
const hasType = (value, type) => ['number', 'string', 'boolean'].includes(type) ? typeof value === type
  : /^(number|string)\[\]$/.test(type) ? Array.isArray(value) && value.every((v) => typeof v === type.slice(0, -2))
  : literals(type).includes(undefined) || literals(type).includes(value);

test('every message the client writes fits the declared ClientMessage: each field declared and typed, none missing', () => {
  const universe = interfacesOf('ClientMessage').map((name) => d.interfaces.get(name).members);
  const tag = (m) => /^'[^']*'$/.test(m.type) ? m.type.slice(1, -1) : undefined;
  const kinds = new Set();
  for (const message of session().sent) {
    // The interfaces whose tags (fields of one string literal: `type: 'op'`, `op: 'snap'`) the message carries.
    const tagsOf = (members) => [...members].filter(([, m]) => tag(m) !== undefined);
    const fitting = universe.filter((members) => tagsOf(members).length > 0 && tagsOf(members).every(([key, m]) => message[key] === tag(m)));
    const text = JSON.stringify(message);
    assert.ok(fitting.some((members) => members.has('type')), `no declared message has type ${message.type}: ${text}`);
    if (message.type === 'op') assert.ok(fitting.some((members) => members.has('op') && !members.has('type')), `no declared op ${message.op}: ${text}`);
    const declared = new Map(fitting.flatMap((members) => [...members]));
    for (const [key, value] of Object.entries(message)) {
      assert.ok(declared.has(key), `${key} is not declared: ${text}`);
      assert.ok(hasType(value, declared.get(key).type), `${key} is not ${declared.get(key).type}: ${text}`);
    }
    for (const [key, m] of declared) assert.ok(m.optional || key in message, `${key} is missing: ${text}`);
    kinds.add(message.type === 'op' ? `op ${message.op}${message.phase ? ` ${message.phase}` : ''}` : message.type);
  }
  for (const kind of ['view', 'ping', 'cursor', 'op snap', 'op clear', 'op delete', 'op undo', 'op redo', 'op move begin', 'op move update', 'op move end', 'op scale update', 'op rotate', 'op move', 'op style', 'op text', 'op text begin', 'op text update', 'op text end']) assert.ok(kinds.has(kind), `the session wrote no ${kind}`);
});

/** Compares declared fields with a schema's: the same names, required alike, the schema's string literals declared. */
function compareFields(path, members, properties, required = []) {
  assert.deepEqual([...members.keys()].sort(), [...new Set([...Object.keys(properties), ...required])].sort(), `${path}: the fields`);
  for (const [key, m] of members) {
    assert.equal(!m.optional, required.includes(key), `${path}.${key} is ${m.optional ? 'optional' : 'required'}, the schema says otherwise`);
    const prop = properties[key] ?? {};
    const values = prop.const !== undefined ? [prop.const] : prop.enum ?? [];
    for (const v of values.filter((x) => typeof x === 'string')) assert.ok(literals(m.type).includes(v), `${path}.${key}: ${m.type} leaves out ${v}`);
    // Into an object, or the objects of an array, that the declaration names as an interface.
    const [nested, schema] = prop.properties ? [m.type, prop] : prop.items?.properties && m.type.endsWith('[]') ? [m.type.slice(0, -2), prop.items] : [];
    if (d.interfaces.has(nested)) compareFields(`${path}.${key}`, d.interfaces.get(nested).members, schema.properties, schema.required);
  }
}

test('the declared messages are those of Protocol/schema/, field by field, both ways', () => {
  const schema = (name) => JSON.parse(readFileSync(new URL(`../../Protocol/schema/${name}.json`, import.meta.url), 'utf8'));
  const names = { ack: 'AckMessage', cursor: 'CursorMessage', cursors: 'CursorsMessage', delta: 'DeltaMessage', error: 'ErrorMessage', ping: 'PingMessage',
    pong: 'PongMessage', presence: 'PresenceMessage', reject: 'RejectMessage', shape: 'Shape', view: 'ViewMessage', welcome: 'WelcomeMessage' };
  for (const [file, name] of Object.entries(names)) compareFields(name, d.interfaces.get(name).members, schema(file).properties, schema(file).required);
  // Ops: the envelope's fields and each op's own, against op.json and its `oneOf`.
  const op = schema('op'), envelope = d.interfaces.get('OpEnvelope').members, ops = interfacesOf('Op');
  assert.equal(ops.length, op.oneOf.length, 'one declared op for each of op.json');
  for (const variant of op.oneOf) {
    const name = ops.find((n) => d.interfaces.get(n).members.get('op').type === `'${variant.properties.op.const}'`);
    assert.ok(name, `no declared op ${variant.properties.op.const}`);
    compareFields(name, new Map([...envelope, ...d.interfaces.get(name).members]), { ...op.properties, ...variant.properties }, [...op.required, ...variant.required ?? []]);
  }
  const covered = [...Object.values(names), 'OpEnvelope', ...ops];
  for (const name of [...interfacesOf('ServerMessage'), ...interfacesOf('ClientMessage')]) assert.ok(covered.includes(name), `${name} has no schema to check it by`);
});

test('Node 20 imports the package by name through its exports, and the folder by path; tsc takes its types', (t) => {
  const dir = scratch();
  for (const to of [['node_modules', '@snapboard', 'client'], ['snapboard-client']]) cpSync(lib, join(dir, ...to), { recursive: true });
  writeFileSync(join(dir, 'app.mjs'), `
    const byName = await import('@snapboard/client'), byPath = await import('./snapboard-client/index.js');
    const deep = await import('@snapboard/client/client.js').then(() => 'imported', (e) => e.code);
    const { default: pkg } = await import('@snapboard/client/package.json', { with: { type: 'json' } });
    const client = new byName.SnapboardClient({ url: 'ws://127.0.0.1:9/v1/canvases/t' });
    console.log(JSON.stringify({ byName: Object.keys(byName).sort(), byPath: Object.keys(byPath).sort(), deep, version: pkg.version, state: client.state }));
  `);
  const out = JSON.parse(execFileSync(process.execPath, ['app.mjs'], { cwd: dir, encoding: 'utf8' }));
  assert.deepEqual(out, { byName: Object.keys(library).sort(), byPath: Object.keys(library).sort(), deep: 'ERR_PACKAGE_PATH_NOT_EXPORTED', version: pkg.version, state: 'connecting' });
  // An app in TypeScript, strict, against the installed package (tsc: Debian's node-typescript).
  if (spawnSync('tsc', ['--version']).error) return t.diagnostic('tsc is not installed: the type check is skipped');
  writeFileSync(join(dir, 'app.mts'), `import { APIError, SnapboardAPI, SnapboardClient, contours, problemFor, type ClientMessage } from '@snapboard/client';
    const client = new SnapboardClient({ url: 'ws://h/v1/canvases/t', WebSocket: globalThis.WebSocket, schedule: requestAnimationFrame });
    client.on('cursors', (c) => [...c].map(([session, p]) => session + p.x)); const g = client.gesture('scale', 's1'); g.update({ factor: 2, ax: 1, ay: 1 });
    const ids: (string | null)[] = [g.end(), client.snap(1, 2, { kind: 'star' })], points = client.drawingOrder().map((s) => contours(s)[0][0].y);
    const m: ClientMessage = { type: 'op', id: 'x', op: 'delete', shapes: ['s1'] }; console.log(ids, points, m);
    const other = new SnapboardClient({ url: 'ws://h/v1/canvases/t', token: 't', refreshToken: async () => 'u', fetch });
    other.on('replaced', (r) => console.log(r.dropped)); other.setToken(null); other.close(1001);
    const moved: string[] = other.nudge(new Set(['a']), 32, 0, { snap: true }); const words: string | undefined = other.problem?.message;
    const editable: boolean = other.canEdit && !other.stale && other.role !== 'viewer' && other.state !== 'storage_full';
    const api = new SnapboardAPI({ base: 'http://h', token: 't' }); const minted = await api.mintToken({ canvas: 'c', role: 'viewer', ttl: 60 });
    const listed = await api.listCanvases({ prefix: 'p' }); const entries = await api.history('c', { after: 1 });
    try { await api.access('c'); } catch (e) { if (e instanceof APIError) console.log(e.status, e.reason, e.message.length); }
    console.log(moved, words, editable, minted.link, listed.canvases[0]?.id, entries.ops[0]?.name, problemFor('expired').message); // @ts-expect-error no such event
    client.on('nope', () => {});`);
  const tsc = spawnSync('tsc', ['--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom,dom.iterable', 'app.mts'], { cwd: dir, encoding: 'utf8' });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});

test('npm pack lists index.js, index.d.ts, package.json, README.md and every module index.js imports', (t) => {
  if (spawnSync('npm', ['--version']).error) return t.skip('npm is not installed: the npm pack check is skipped');
  const dir = scratch();
  cpSync(lib, join(dir, 'pack'), { recursive: true });
  const env = { ...process.env, npm_config_cache: join(dir, 'cache'), npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: join(dir, 'pack'), env, encoding: 'utf8' }));
  const files = packed.files.map((f) => f.path);
  assert.deepEqual([packed.name, packed.version], [pkg.name, pkg.version]);
  // The modules index.js reaches through relative imports (a Set's loop visits what it adds meanwhile).
  const modules = new Set(['index.js']);
  for (const m of modules) for (const [, spec] of read(m).matchAll(/^(?:import|export)\b[^;]*?\bfrom '\.\/([^']+)'/gms)) modules.add(spec);
  assert.ok(modules.has('replica.js') && modules.has('gesture-math.js'), `the imports index.js reaches: ${[...modules]}`);
  for (const file of ['index.d.ts', 'package.json', 'README.md', ...modules]) assert.ok(files.includes(file), `npm pack leaves out ${file}: ${files}`);
});
