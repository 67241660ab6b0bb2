// Text, notes and style (protocol 1.7, P26) in the library: the palette and colours, a colour as the exact
// HSB fill, a shape's look with its defaults, text and note geometry, what `style` and `text` send (a stub
// socket), offline snaps drawn in their colours, and two clients against a real server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  bounds, colorHex, contains, contours, cssColor, defaultFrame, fillFromColor, hexOfFill, lookDefaults, lookOf,
  palette, predictSnap, REVISION, Replica, SnapboardClient, styleRanges,
} from '../../Sources/SnapboardWeb/lib/index.js';
import { get, until } from './support.mjs';
import { librarySuite } from './library-support.mjs';

const shape = (id, extra = {}) => ({ id, kind: 'roundedRect', x: 100, y: 100, w: 120, h: 120, scale: 1, rotation: 0, fill: { h: 0, s: 0, b: 0, a: 1 }, hatch: 'none', z: 0, ...extra });
const welcome = (shapes, extra = {}) => ({ type: 'welcome', protocol: 1, revision: REVISION, session: 1, canvas: 't', seq: 2, epoch: 'e', resumed: false,
  grid: { width: 1024, height: 768, x: { pitch: 32 }, y: { pitch: 32 } }, shapes, sessions: [], leases: {}, ...extra });
const rgbOf = (css) => css.match(/\d+/g).slice(0, 3).map(Number);
const hex = (r, g, b) => `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;

test('the palette is the spec\'s 12 colours in its order', () => {
  assert.deepEqual(Object.entries(palette), [
    ['black', '#1e1e1e'], ['grey', '#868e96'], ['white', '#ffffff'], ['red', '#e03131'], ['orange', '#f08c00'], ['yellow', '#ffec99'],
    ['green', '#2f9e44'], ['teal', '#0c8599'], ['blue', '#1971c2'], ['violet', '#6741d9'], ['pink', '#c2255c'], ['brown', '#8d5524'],
  ]);
  assert.ok(Object.isFrozen(palette));
  assert.equal(REVISION, 7);
});

test('a colour is #rrggbb of either case or a palette name; anything else is no colour (bad_style)', () => {
  assert.equal(colorHex('#A1b2C3'), '#a1b2c3');
  assert.equal(colorHex('teal'), '#0c8599');
  for (const bad of ['#abc', 'a1b2c3', '#a1b2c3ff', 'Teal', 'rgb(1,2,3)', '', null, undefined, 7, 'toString', 'constructor', '#gg0000']) {
    assert.equal(colorHex(bad), null, String(bad));
    assert.equal(fillFromColor(bad), null, String(bad));
  }
});

test('a colour\'s HSB fill gives exactly that colour back through the sectors of HSBColor.rgb and cssColor, for every palette colour and a sweep of all others', () => {
  for (const [name, value] of Object.entries(palette)) {
    const fill = fillFromColor(name, 0.8);
    assert.equal(hexOfFill(fill), value, name);
    assert.deepEqual(rgbOf(cssColor(fill)), [1, 3, 5].map((i) => parseInt(value.slice(i, i + 2), 16)), name);
    assert.equal(fill.a, 0.8, 'alpha is kept as given');
  }
  let checked = 0;
  for (let r = 0; r < 256; r += 3) for (let g = 0; g < 256; g += 5) for (let b = 0; b < 256; b += 1) {
    const fill = fillFromColor(hex(r, g, b));
    assert.ok([fill.h, fill.s, fill.b].every((v) => v >= 0 && v <= 1), `${hex(r, g, b)}: components in 0–1`);
    if (hexOfFill(fill) !== hex(r, g, b)) assert.fail(`${hex(r, g, b)} comes back as ${hexOfFill(fill)}`);
    checked++;
  }
  for (const edge of ['#000000', '#ffffff', '#ff0000', '#00ff00', '#0000ff', '#fe0001', '#010000', '#ffff00', '#00ffff', '#ff00ff', '#7f7f80']) {
    assert.equal(hexOfFill(fillFromColor(edge)), edge, edge);
  }
  assert.ok(checked > 100000);
});

test('a shape\'s look: its own fields, the defaults where the wire form leaves them out', () => {
  assert.deepEqual(lookDefaults, { text: '', stroke: null, strokeWidth: 1.25, opacity: 1, fontSize: 20 });
  assert.deepEqual(styleRanges, { strokeWidth: [0, 32], opacity: [0.1, 1], fontSize: [8, 160] });
  assert.deepEqual(lookOf(shape('a')), lookDefaults);
  assert.deepEqual(lookOf(shape('a', { text: 'hi\nthere', stroke: '#e03131', strokeWidth: 0, opacity: 0.5, fontSize: 40 })),
    { text: 'hi\nthere', stroke: '#e03131', strokeWidth: 0, opacity: 0.5, fontSize: 40 });
  const replica = new Replica();
  replica.apply(welcome([shape('a'), shape('b', { kind: 'note', w: 200, h: 200, text: 'note' })]));
  assert.deepEqual(replica.lookOf('a'), lookDefaults);
  assert.equal(replica.lookOf('b').text, 'note');
  assert.equal(replica.lookOf('nope'), undefined);
  // A style's committed delta carries the whole shape; one back to the defaults carries none of the fields.
  replica.apply({ type: 'delta', seq: 3, by: 1, ops: ['s'], shapes: [shape('a', { stroke: '#1971c2', opacity: 0.4 })], removed: [], cleared: false, events: [], live: false });
  assert.deepEqual(replica.lookOf('a'), { ...lookDefaults, stroke: '#1971c2', opacity: 0.4 });
  replica.apply({ type: 'delta', seq: 4, by: 1, ops: ['u'], shapes: [shape('a')], removed: [], cleared: false, events: [], live: false });
  assert.deepEqual(replica.lookOf('a'), lookDefaults);
  // A live placement keeps the look.
  replica.apply({ type: 'delta', seq: 4, by: 2, ops: ['m'], placed: [['b', 300, 300, 200, 200, 2, 0, 1]], events: [], live: true });
  assert.equal(replica.lookOf('b').text, 'note');
});

test('text and note kinds: each is its frame (a note\'s rounded corners are only drawn), hit-tested and bounded as SnapboardCore does, scaled and rotated', () => {
  assert.deepEqual(defaultFrame('text'), { w: 240, h: 60 });
  assert.deepEqual(defaultFrame('note'), { w: 200, h: 200 });
  assert.deepEqual(defaultFrame('dot'), { w: 24, h: 24 });
  assert.deepEqual(defaultFrame('star'), { w: 120, h: 120 });
  const text = shape('t', { kind: 'text', w: 240, h: 60 });
  assert.deepEqual(contours(text)[0], [{ x: -20, y: 70 }, { x: 220, y: 70 }, { x: 220, y: 130 }, { x: -20, y: 130 }]);
  assert.deepEqual(bounds(text), { minX: -20, minY: 70, maxX: 220, maxY: 130 });
  assert.ok(contains(text, { x: 219, y: 129 }));
  assert.ok(contains(shape('n', { kind: 'note', w: 200, h: 200 }), { x: 0.5, y: 0.5 }), 'a press on a drawn corner still hits the note');
  const note = shape('n', { kind: 'note', w: 200, h: 200, scale: 2, rotation: Math.PI / 4 });
  const b = bounds(note), reach = 200 * Math.SQRT2;
  for (const [got, want] of [[b.minX, 100 - reach], [b.maxX, 100 + reach], [b.minY, 100 - reach], [b.maxY, 100 + reach]]) assert.ok(Math.abs(got - want) < 1e-9, `${got} ≈ ${want}`);
  assert.ok(contains(note, { x: 100 + 270, y: 100 }), 'turned 45° and scaled 2: a corner reaches 283 units right');
});

test('an offline snap of a note or text is drawn with the spec\'s frame, colour, text and style, as the server would make it', () => {
  const replica = new Replica();
  replica.apply(welcome([]));
  const note = predictSnap(replica, { op: 'snap', x: 100, y: 100, shape: { kind: 'note', text: 'Hi', fill: 'green', stroke: 'BLUE' } }, 'n1');
  assert.deepEqual([note.w, note.h, note.text, note.fill], [200, 200, 'Hi', fillFromColor('green', 1)]);
  assert.equal(note.stroke, undefined, '"BLUE" is no colour (palette names are lower case): the server would refuse it');
  const plain = predictSnap(replica, { op: 'snap', x: 100, y: 100, shape: { kind: 'note' } }, 'n2');
  assert.equal(hexOfFill(plain.fill), '#ffec99');
  assert.equal(plain.fill.a, 1, 'a note is opaque');
  assert.equal(plain.text, undefined, 'a default is absent, as on the wire');
  const text = predictSnap(replica, { op: 'snap', x: 100, y: 100, shape: { kind: 'text', text: 'Label', fontSize: 20, strokeWidth: 3, stroke: '#E03131' } }, 't1');
  assert.deepEqual([text.w, text.h, text.fill.a, text.fontSize, text.strokeWidth, text.stroke], [240, 60, 0, undefined, 3, '#e03131']);
  const star = predictSnap(replica, { op: 'snap', x: 100, y: 100, shape: { kind: 'star', fill: '#1971C2', opacity: 0.5 } }, 's1');
  assert.deepEqual([hexOfFill(star.fill), star.fill.a, star.opacity], ['#1971c2', 0.8, 0.5]);
});

/** A socket the test holds: it records what the client writes, and `open()` welcomes the client. */
class StubSocket {
  static last = null;
  constructor() { this.readyState = 1; this.sent = []; StubSocket.last = this; }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() {}
  receive(m) { this.onmessage({ data: JSON.stringify(m) }); }
}

function stubClient() {
  const client = new SnapboardClient({ url: 'ws://127.0.0.1:9/v1/canvases/t', WebSocket: StubSocket, pingInterval: 0, schedule: (fn) => fn() });
  client.connect();
  const socket = StubSocket.last;
  socket.receive(welcome([shape('a', { text: 'old' }), shape('b')]));
  assert.equal(client.state, 'connected');
  return { client, socket, ops: () => socket.sent.filter((m) => m.type === 'op').map(({ type, id, ...op }) => op) };
}

test('style sends one op with the given fields only, and none without a field', () => {
  const { client, socket, ops } = stubClient();
  const id = client.style(new Set(['a', 'b']), { fill: 'red', stroke: '#00AA11', strokeWidth: 0, opacity: undefined, fontSize: 32 });
  assert.deepEqual(ops(), [{ op: 'style', shapes: ['a', 'b'], fill: 'red', stroke: '#00AA11', strokeWidth: 0, fontSize: 32 }]);
  assert.equal(client.pending.ops[0].id, id, 'tracked until answered');
  assert.equal(client.style(['a'], {}), null, 'no field: nothing sent');
  assert.equal(client.style(['a'], { colour: 'red' }), null, 'no field it knows: nothing sent');
  assert.equal(ops().length, 1);
  socket.receive({ type: 'ack', id, seq: 3 });
  assert.equal(client.pending.ops.length, 0);
  client.close();
});

test('text: a one-shot sets it; an edit is a begin, updates and an end; only the end and the one-shot wait for an answer', () => {
  const { client, ops } = stubClient();
  const one = client.text('a', 'set');
  client.text('b', undefined, 'begin');
  client.text('b', 'dr', 'update');
  client.text('b', 'draft', 'update');
  const end = client.text('b', 'draft done', 'end');
  assert.deepEqual(ops(), [
    { op: 'text', shape: 'a', text: 'set' },
    { op: 'text', shape: 'b', phase: 'begin' },
    { op: 'text', shape: 'b', phase: 'update', text: 'dr' },
    { op: 'text', shape: 'b', phase: 'update', text: 'draft' },
    { op: 'text', shape: 'b', phase: 'end', text: 'draft done' },
  ]);
  assert.deepEqual(client.pending.ops.map((p) => p.id), [one, end]);
  client.close();
});

test('text across a reconnect: an update begins again on the new connection; an end whose begin was lost goes as a one-shot with the same id', () => {
  const { client, socket } = stubClient();
  client.text('a', 'x', 'begin');
  socket.onclose({ code: 1006 });
  assert.equal(client.text('a', 'xy', 'update'), null, 'offline: a draft is not sent');
  const endId = client.text('a', 'xyz', 'end');
  assert.deepEqual(client.pending.toResend(client.replica).map(({ type, ...op }) => op), [{ id: endId, op: 'text', shape: 'a', text: 'xyz' }]);
  // A new connection: the edit of b began before it; its next update begins again.
  client.connect();
  const second = StubSocket.last;
  client.text('b', 'q', 'begin');
  second.receive(welcome([shape('a'), shape('b')], { resumed: true, seq: 2 }));
  assert.equal(client.state, 'connected');
  assert.deepEqual(second.sent.filter((m) => m.type === 'op').map(({ type, ...op }) => op), [{ id: endId, op: 'text', shape: 'a', text: 'xyz' }], 'the end resent as a one-shot; the begin of b was not sent while connecting');
  client.text('b', 'qr', 'update');
  assert.deepEqual(second.sent.filter((m) => m.type === 'op').slice(1).map(({ type, id, ...op }) => op),
    [{ op: 'text', shape: 'b', phase: 'begin', text: 'qr' }, { op: 'text', shape: 'b', phase: 'update', text: 'qr' }]);
  client.close();
});

test('a viewer\'s style and text send nothing', () => {
  const { client, socket, ops } = stubClient();
  socket.receive(welcome([shape('a')], { role: 'viewer' }));
  assert.equal(client.style(['a'], { fill: 'red' }), null);
  assert.equal(client.text('a', 'x'), null);
  assert.equal(client.text('a', 'x', 'begin'), null);
  assert.deepEqual(ops(), []);
  client.close();
});

const suite = librarySuite();

test('against a real server: ann writes and styles, ben sees it; ann\'s text lease refuses ben\'s move, style and text; bad colours, text and ranges are refused; a begin under a drag is refused; a holder that leaves commits the draft', async () => {
  const { server, ann, ben, answers, answer } = await suite.pair('lib-content', { kinds: ['ack', 'reject', 'error'] });

  // A note with text and a colour fill, exactly that colour on every replica.
  await answer(ann.snap(320, 320, { kind: 'note', text: 'Plan', fill: '#2F9E44', stroke: 'violet' }));
  const [note] = ann.replica.drawingOrder();
  assert.deepEqual([note.kind, note.w, note.h, note.text, note.stroke, hexOfFill(note.fill), note.fill.a], ['note', 200, 200, 'Plan', palette.violet, '#2f9e44', 1]);
  await until('ben has the note', () => ben.replica.shapes.get(note.id)?.text === 'Plan');

  const styled = await answer(ann.style([note.id], { fill: 'orange', strokeWidth: 3, opacity: 0.6, fontSize: 30 }));
  assert.equal(styled.type, 'ack');
  await until('ben sees the style', () => ben.replica.lookOf(note.id).fontSize === 30);
  assert.deepEqual(ben.replica.lookOf(note.id), { text: 'Plan', stroke: palette.violet, strokeWidth: 3, opacity: 0.6, fontSize: 30 });
  assert.equal(hexOfFill(ben.replica.shapes.get(note.id).fill), palette.orange);
  assert.equal((await answer(ann.style([note.id], { fill: 'orange' }))).unchanged, true, 'the same look again: unchanged');

  // Ann's edit holds the lease: ben is told shape_locked for each of these.
  ann.text(note.id, undefined, 'begin');
  await until('ben sees ann\'s lease', () => ben.replica.leases[note.id] === ann.replica.session);
  ann.text(note.id, 'Plan B', 'update');
  for (const id of [ben.nudge([note.id], 32, 0)[0], ben.style([note.id], { stroke: 'red' }), ben.text(note.id, 'mine')]) {
    const refused = await answer(id);
    assert.deepEqual([refused.type, refused.code], ['reject', 'shape_locked'], JSON.stringify(refused));
  }
  assert.equal(ben.replica.shapes.get(note.id).text, 'Plan', 'a draft is not broadcast');
  const end = await answer(ann.text(note.id, 'Plan B', 'end'));
  assert.equal(end.type, 'ack');
  await until('ben has the text, the lease gone', () => ben.replica.shapes.get(note.id)?.text === 'Plan B' && ben.replica.leases[note.id] === undefined);

  // Refusals: a colour outside the palette, a control character, a number out of range, a style of nothing.
  const codes = [];
  for (const id of [ann.style([note.id], { fill: 'Teal' }), ann.text(note.id, 'a\rb'), ann.style([note.id], { fontSize: 4 }), ann.send({ op: 'style', shapes: [note.id] }),
    ann.text(note.id, 'x'.repeat(4097))]) {
    const m = await answer(id);
    codes.push(`${m.type} ${m.code}`);
  }
  assert.deepEqual(codes, ['reject bad_style', 'reject bad_text', 'reject out_of_range', 'reject bad_style', 'reject out_of_range']);

  // Undo puts the text back; GET agrees with both replicas.
  await answer(ann.undo());
  await until('ben sees the text put back', () => ben.replica.shapes.get(note.id)?.text === 'Plan');
  const { body } = await get(server, '/v1/canvases/lib-content');
  assert.deepEqual(body.shapes.find((s) => s.id === note.id), ben.replica.shapes.get(note.id));
  assert.deepEqual(ann.replica.shapes.get(note.id), ben.replica.shapes.get(note.id));

  // A text begin on a shape under someone's gesture is refused; a holder that leaves commits the last draft.
  const drag = ann.gesture('move', note.id);
  drag.update({ dx: 10, dy: 0 });
  await until('ben sees ann\'s drag', () => ben.replica.leases[note.id] === ann.replica.session);
  const begin = ben.text(note.id, undefined, 'begin');
  const refused = await answer(begin);
  assert.deepEqual([refused.type, refused.code], ['reject', 'shape_locked']);
  await answer(drag.end({ dx: 0, dy: 0 }));
  await until('the drag\'s lease gone', () => ben.replica.leases[note.id] === undefined);
  ben.text(note.id, undefined, 'begin');
  ben.text(note.id, 'left behind', 'update');
  await until('ann sees ben\'s lease', () => ann.replica.leases[note.id] === ben.replica.session);
  ben.close();
  await until('ben\'s draft committed when he left', () => ann.replica.shapes.get(note.id)?.text === 'left behind', 15000);
});
