// The README's picture of a board as the server exports it (protocol 1.7): notes, a text, styled shapes and
// arrows bound between them, drawn over a real WebSocket and exported as SVG and PNG by the real server.
// Always written to .build/web-artifacts/board-export.png; with SNAPBOARD_SCREENSHOTS=1 (`make screenshots`)
// also to docs/images/board-export.png.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { root, startServer, until } from './support.mjs';

const artifacts = `${root}.build/web-artifacts`;
mkdirSync(artifacts, { recursive: true });
const publish = process.env.SNAPBOARD_SCREENSHOTS === '1';
const canvas = 'release-plan';

/** The ops that draw the board, in order, each acked before the next. */
const ops = [
  { op: 'snap', x: 160, y: 192, shapeId: 'plan', shape: { kind: 'note', text: 'Ship 1.7:\ntext, notes,\narrows', fontSize: 24 } },
  { op: 'snap', x: 480, y: 192, shapeId: 'server', shape: { kind: 'roundedRect', w: 224, h: 112, fill: 'blue', stroke: '#1e1e1e', text: 'Server orders,\nsnaps, stores', fontSize: 20 } },
  { op: 'style', shapes: ['server'], fill: '#a5d8ff' },
  { op: 'snap', x: 480, y: 480, shapeId: 'page', shape: { kind: 'oval', w: 224, h: 128, fill: '#b2f2bb', stroke: '#2f9e44', strokeWidth: 2.5, text: 'Web page', fontSize: 24 } },
  { op: 'snap', x: 832, y: 480, shapeId: 'term', shape: { kind: 'polygon', sides: 6, w: 176, h: 160, fill: '#ffd8a8', stroke: '#e8590c', strokeWidth: 2, text: 'Terminal', fontSize: 20 } },
  { op: 'snap', x: 832, y: 192, shapeId: 'risk', shape: { kind: 'note', text: 'Export draws\nit all', fill: '#fcc2d7', stroke: '#1e1e1e', strokeWidth: 1.25, fontSize: 22 } },
  { op: 'snap', x: 160, y: 608, shapeId: 'title', shape: { kind: 'text', w: 256, h: 96, text: 'Release plan\nNov 27', fontSize: 28, stroke: '#495057' } },
  { op: 'connect', shapeId: 'a1', shape: { kind: 'arrow', strokeWidth: 2.5, stroke: '#1e1e1e' }, from: { shape: 'plan', anchor: 'right' }, to: { shape: 'server', anchor: 'left' } },
  { op: 'connect', shapeId: 'a2', shape: { kind: 'arrow', strokeWidth: 2.5, stroke: '#1e1e1e', text: 'deltas' }, from: { shape: 'server', anchor: 'bottom' }, to: { shape: 'page', anchor: 'top' } },
  { op: 'connect', shapeId: 'a3', shape: { kind: 'arrow', strokeWidth: 2.5, stroke: '#1e1e1e' }, from: { shape: 'server', anchor: 'right' }, to: { shape: 'risk', anchor: 'left' } },
  { op: 'connect', shapeId: 'a4', shape: { kind: 'line', strokeWidth: 2.5, stroke: '#868e96' }, from: { shape: 'page', anchor: 'right' }, to: { shape: 'term', anchor: 'left' } },
];

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

test('a board with notes, a text, styles and bound arrows exports as an SVG with every text and arrow, and as a PNG of the canvas\'s size', async () => {
  const socket = new WebSocket(`${server.ws(canvas)}?name=exporter&client=exporter`);
  const answers = new Map();
  socket.onmessage = (event) => {
    const value = JSON.parse(event.data);
    for (const m of Array.isArray(value) ? value : [value]) if (m.type === 'ack' || m.type === 'reject') answers.set(m.id, m);
  };
  await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = reject; });
  for (const [n, body] of ops.entries()) {
    const id = `e${n}`;
    socket.send(JSON.stringify({ type: 'op', id, ...body }));
    const answer = await until(`op ${id} answered`, () => answers.get(id));
    assert.equal(answer.type, 'ack', `${body.op} ${JSON.stringify(answer)}`);
  }
  socket.close();

  const canvasJSON = await (await fetch(`${server.http}/v1/canvases/${canvas}`)).json();
  const a2 = canvasJSON.shapes.find((s) => s.id === 'a2');
  assert.deepEqual([a2.from, a2.to], [{ shape: 'server', anchor: 'bottom' }, { shape: 'page', anchor: 'top' }]);

  const svg = await (await fetch(`${server.http}/v1/canvases/${canvas}/export?format=svg`)).text();
  for (const text of ['Ship 1.7:', 'arrows', 'Server orders,', 'Web page', 'Terminal', 'Release plan', 'deltas']) {
    assert.ok(svg.includes(`>${text}</tspan>`), `the SVG writes ${text}`);
  }
  assert.equal(svg.split('class="connector"').length - 1, 4);
  assert.equal(svg.split('class="arrowhead"').length - 1, 3);

  const response = await fetch(`${server.http}/v1/canvases/${canvas}/export?format=png&scale=1`);
  assert.equal(response.status, 200);
  const png = Buffer.from(await response.arrayBuffer());
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [canvasJSON.config?.width ?? 1024, canvasJSON.config?.height ?? 768]);
  writeFileSync(`${artifacts}/board-export.png`, png);
  if (publish) writeFileSync(`${root}docs/images/board-export.png`, png);
});
