import Testing

@testable import SnapboardCore
@testable import SnapboardStore

@Suite("The op log row format: stable hatch codes")
struct LogCodecHatchTests {
    @Test("Hatch bytes on disk are pinned: none 0, hatch 1, crossHatch 2, whatever the enum's order")
    func hatchCodes() {
        #expect(Hatch.allCases.map(LogCodec.code(of:)).sorted() == [0, 1, 2])
        #expect(LogCodec.code(of: .none) == 0 && LogCodec.code(of: .hatch) == 1 && LogCodec.code(of: .crossHatch) == 2)
        for hatch in Hatch.allCases { #expect(LogCodec.hatch(code: LogCodec.code(of: hatch)) == hatch) }
        #expect(LogCodec.hatch(code: 3) == nil)
    }

    @Test("A created shape with each hatch reads back the same")
    func roundTrip() throws {
        for hatch in Hatch.allCases {
            let shape = Shape(id: "s", kind: .star(points: 5, innerRatio: 0.5), center: Point(x: 1, y: 2), size: Size(width: 3, height: 4),
                              scale: 1.5, rotation: 0.25, fill: .seedDefault(hue: 0.3), hatch: hatch, z: 7)
            #expect(try LogCodec.decode(LogCodec.encode(.create(shape, rng: 42))) == .create(shape, rng: 42))
        }
    }
}
