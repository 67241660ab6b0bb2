import Foundation
import PropertyBased
import Testing

@testable import SnapboardCore

@Suite("Intersection grid (seed 000)")
struct GridTests {
    @Test("Seed 000's bug: on a 414-wide canvas with 5 divisions the outermost points lie on drawn gridlines")
    func seedBugOutermostPoints() throws {
        let axis = try #require(GridAxis(length: 414, spacing: .divisions(5)))
        let lines = Set(axis.lines)
        // The seed's integer spacing put the rightmost point at 414 - 82 = 332, but the line was drawn at 328.
        let rightmost = axis.snap(10_000)
        #expect(rightmost == 414.0 * 4 / 5)
        #expect(lines.contains(rightmost))
        #expect(lines.contains(axis.snap(-50)))
        #expect(axis.snap(-50) == 414.0 / 5)
    }

    @Test("Every snapped coordinate is bit-identical to a drawn gridline, for many sizes and divisions",
          arguments: [100.0, 320, 375, 414, 768, 1024, 1366, 999.5, 1234.567], Array(2...17))
    func snappedPointsLieOnGridlines(length: Double, divisions: Int) throws {
        let axis = try #require(GridAxis(length: length, spacing: .divisions(divisions)))
        let interior = Set(axis.lines.dropFirst().dropLast())
        var v = -length
        while v <= 2 * length {
            #expect(interior.contains(axis.snap(v)), "length \(length) n \(divisions) v \(v)")
            v += length / 97
        }
    }

    @Test("A value exactly halfway between two lines rounds to the higher one")
    func midpointRoundsUp() throws {
        let axis = try #require(GridAxis(length: 400, spacing: .divisions(4)))  // lines at 100, 200, 300
        #expect(axis.snap(150) == 200)
        #expect(axis.snap(249.999) == 200)
        #expect(axis.snap(250) == 300)
        #expect(axis.nearestIndex(to: 150) == 2)
    }

    @Test("Taps before the first or past the last interior line clamp to it; NaN and infinities do not trap")
    func outOfCanvasTapsClamp() throws {
        let grid = try #require(IntersectionGrid(width: 414, height: 736, columns: 5, rows: 7))
        #expect(grid.snap(Point(x: -30, y: -1e300)) == Point(x: 414.0 / 5, y: 736.0 / 7))
        #expect(grid.snap(Point(x: 5000, y: 736)) == Point(x: 414.0 * 4 / 5, y: 736.0 * 6 / 7))
        #expect(grid.snap(Point(x: .infinity, y: -.infinity)) == Point(x: 414.0 * 4 / 5, y: 736.0 / 7))
        #expect(grid.snap(Point(x: .nan, y: 10)).x == 414.0 / 5)
    }

    @Test("Pitch mode puts lines every pitch from 0 and keeps the short last part off-limits")
    func pitchMode() throws {
        let axis = try #require(GridAxis(length: 100, spacing: .pitch(30)))  // 30, 60, 90 interior
        #expect(axis.lastInteriorIndex == 3)
        #expect(axis.lines == [0, 30, 60, 90, 100])
        #expect(axis.snap(99) == 90)
        #expect(axis.snap(44.9) == 30)
        #expect(axis.snap(45) == 60)
        let exact = try #require(GridAxis(length: 90, spacing: .pitch(30)))  // 30, 60: 90 is the edge
        #expect(exact.lastInteriorIndex == 2)
        #expect(exact.snap(89) == 60)
    }

    @Test("Axes with no interior line are refused", arguments: [
        (100.0, GridAxis.Spacing.divisions(1)), (100, .divisions(0)), (100, .pitch(100)), (100, .pitch(0)),
        (0, .divisions(4)), (.nan, .divisions(4)), (100, .pitch(.infinity)), (-5, .pitch(1)),
    ])
    func invalidAxes(length: Double, spacing: GridAxis.Spacing) {
        #expect(GridAxis(length: length, spacing: spacing) == nil)
    }

    @Test("An axis's spacing is divisions or pitch: one decodes, both at once are refused")
    func spacingIsOneOfTwo() throws {
        let decode = { (json: String) in try JSONDecoder().decode(GridAxis.Spacing.self, from: Data(json.utf8)) }
        #expect(try decode(#"{"divisions":4}"#) == .divisions(4))
        #expect(try decode(#"{"pitch":12.5}"#) == .pitch(12.5))
        #expect(throws: DecodingError.self) { try decode(#"{"divisions":4,"pitch":-1}"#) }
    }

    @Test("Property: a snapped point is a grid intersection inside the canvas")
    func snappedPointIsAnIntersection() async {
        await propertyCheck(
            count: 300, input: Gen.double(in: 50...5000), Gen.double(in: 50...5000), Gen.int(in: 2...40),
            Gen.int(in: 2...40), Gen.double(in: -1...2), Gen.double(in: -1...2)
        ) { w, h, nx, ny, fx, fy in
            let grid = IntersectionGrid(width: w, height: h, columns: nx, rows: ny)!
            let p = grid.snap(Point(x: fx * w, y: fy * h))
            #expect(grid.x.lines.contains(p.x) && grid.y.lines.contains(p.y))
            #expect(p.x > 0 && p.x < w && p.y > 0 && p.y < h)
        }
    }

    @Test("Property: snapping an already-snapped point leaves it unchanged")
    func snappingIsIdempotent() async {
        await propertyCheck(
            count: 300, input: Gen.double(in: 50...5000), Gen.int(in: 2...60), Gen.double(in: 1...200),
            Gen.double(in: -1...2)
        ) { length, n, pitch, f in
            for spacing in [GridAxis.Spacing.divisions(n), .pitch(min(pitch, length / 2))] {
                let axis = GridAxis(length: length, spacing: spacing)!
                let once = axis.snap(f * length)
                #expect(axis.snap(once) == once)
            }
        }
    }
}
