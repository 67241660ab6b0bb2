// geometry.js against SnapboardCore: the vectors ShapeVectorTests (Swift) wrote. Run after the Swift tests.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { bounds, contains, contours, gridLines, snapToLines } from '../../Sources/SnapboardWeb/lib/index.js';

const file = new URL('../../.build/web/shape-vectors.json', import.meta.url);

function load() {
  try {
    return JSON.parse(readFileSync(file, 'utf8')).vectors;
  } catch {
    assert.fail(`${file.pathname} is missing: run the Swift tests first (make test does, in that order)`);
  }
}

const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

test('contours agree with Shape.contours to 1e-9 for every kind', () => {
  const vectors = load();
  assert.ok(vectors.length >= 200);
  const kinds = new Set();
  for (const v of vectors) {
    kinds.add(v.shape.kind);
    const js = contours(v.shape);
    assert.equal(js.length, v.contours.length, `${v.shape.kind}: contour count`);
    js.forEach((polygon, i) => {
      assert.equal(polygon.length, v.contours[i].length, `${v.shape.kind}: vertex count`);
      polygon.forEach((p, j) => {
        close(p.x, v.contours[i][j][0], `${v.shape.id} x`);
        close(p.y, v.contours[i][j][1], `${v.shape.id} y`);
      });
    });
  }
  assert.equal(kinds.size, 11, 'every kind, text and note (1.7) among them, and the connectors line and arrow (P28)');
});

test('bounds agree with Shape.bounds to 1e-9, and hit tests with Shape.contains', () => {
  for (const v of load()) {
    const b = bounds(v.shape);
    [b.minX, b.minY, b.maxX, b.maxY].forEach((value, i) => close(value, v.bounds[i], `${v.shape.id} bounds`));
    for (const probe of v.probes) assert.equal(contains(v.shape, probe), probe.inside, `${v.shape.id} contains ${probe.x},${probe.y}`);
  }
});

test('grid lines are computed from their index: the outermost sits on the line (seed 000)', () => {
  const lines = gridLines(414, { divisions: 5 });
  assert.deepEqual(lines, [414 / 5, 414 * 2 / 5, 414 * 3 / 5, 414 * 4 / 5]);
  assert.equal(lines.at(-1), 331.2);
  assert.deepEqual(gridLines(100, { pitch: 32 }), [32, 64, 96]);
  assert.equal(snapToLines([32, 64, 96], 48), 64, 'halfway rounds up');
  assert.equal(snapToLines([32, 64, 96], -10), 32);
});

test('[P28] a connector\'s ends are its frame\'s left and right middles, carried by scale and rotation, and connectorFrame lays it again', async () => {
  const { connectorFrame, endpoints } = await import('../../Sources/SnapboardWeb/lib/index.js');
  const arrow = { kind: 'arrow', x: 400, y: 192, w: 316, h: 16, scale: 1, rotation: 0 };
  assert.deepEqual(endpoints(arrow), { from: { x: 242, y: 192 }, to: { x: 558, y: 192 } });
  const turned = { ...arrow, w: 100, scale: 2, rotation: Math.PI / 2 };
  const ends = endpoints(turned);
  close(ends.from.x, 400, 'from x'); close(ends.from.y, 92, 'from y'); close(ends.to.x, 400, 'to x'); close(ends.to.y, 292, 'to y');
  const frame = connectorFrame(ends.from, ends.to, 2);
  close(frame.x, 400, 'x'); close(frame.y, 192, 'y'); close(frame.w, 100, 'w'); close(frame.rotation, Math.PI / 2, 'rotation');
  close(connectorFrame({ x: 10, y: 10 }, { x: 0, y: 10 }).rotation, Math.PI, 'leftwards');
  close(connectorFrame({ x: 0, y: 10 }, { x: 10, y: 0 }).rotation, 7 * Math.PI / 4, 'up and right: in [0, 2π)');
});
