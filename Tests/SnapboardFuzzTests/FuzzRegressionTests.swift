import Foundation
import SnapboardCore
import SnapboardFuzz
import Testing

/// The fuzz harness (`make fuzz`) as a test: every input the fuzzer ever broke an invariant with
/// (`Tests/Fuzz/regressions/`), and the seeds it starts from, must run through it cleanly.
@Suite("Fuzz harness: regressions and seeds")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every message a client sends in `Protocol/examples`, one per line, by example.
    static func seeds() throws -> [String: [UInt8]] {
        let folder = root.appendingPathComponent("Protocol/examples")
        var seeds: [String: [UInt8]] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".json") {
            let example = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(file))) as? [String: Any]
            let sends = (example?["steps"] as? [[String: Any]] ?? []).compactMap { $0["send"] }
            let lines = try sends.map { try JSONSerialization.data(withJSONObject: $0) + Data("\n".utf8) }
            seeds[file] = Array(lines.reduce(Data(), +))
        }
        return seeds
    }

    @Test("Every example's messages, as one input")
    func examples() throws {
        let seeds = try Self.seeds()
        #expect(seeds.count >= 8)
        for (_, bytes) in seeds.sorted(by: { $0.key < $1.key }) { bytes.withUnsafeBytes(FuzzHarness.run) }
    }

    @Test("Every input in Tests/Fuzz/regressions")
    func regressions() throws {
        let folder = Self.root.appendingPathComponent("Tests/Fuzz/regressions")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }
        for file in files.sorted() {
            try Data(contentsOf: folder.appendingPathComponent(file)).withUnsafeBytes(FuzzHarness.run)
        }
    }

    @Test("A drag whose messages arrive out of shape: updates before a begin, an end twice, bad numbers")
    func malformedDrag() {
        let input = """
            {"type":"op","id":"a","op":"snap","x":100,"y":100,"shapeId":"s"}
            {"type":"op","id":"b","op":"move","shape":"s","phase":"update","dx":5,"dy":5}
            {"type":"op","id":"c","op":"move","shape":"s","phase":"begin"}
            {"type":"op","id":"d","op":"move","shape":"s","phase":"update","dx":1e308,"dy":-1e308}
            {"type":"op","id":"e","op":"move","shape":"s","phase":"end","dx":3,"dy":4}
            {"type":"op","id":"f","op":"move","shape":"s","phase":"end","dx":3,"dy":4}
            {"type":"op","id":"g","op":"scale","shape":"s","factor":0,"ax":0,"ay":0}
            {"type":"op","id":"h","op":"undo"}

            """
        Array(input.utf8).withUnsafeBytes(FuzzHarness.run)
    }

    @Test("Styles, texts and notes (1.7): good, refused and malformed, under leases, locks, deletes, clears and undos")
    func stylesAndTexts() {
        let input = #"""
            {"type":"op","id":"a","op":"snap","x":100,"y":100,"shapeId":"s","shape":{"kind":"note","text":"n\u2713","fill":"yellow"}}
            {"type":"op","id":"b","op":"snap","x":120,"y":100,"shapeId":"t","shape":{"kind":"text","stroke":"#ABCDEF","fontSize":160}}
            {"type":"op","id":"c","op":"style","shapes":["s","t"],"fill":"red","opacity":0.1,"strokeWidth":0}
            {"type":"op","id":"d","op":"style","shapes":["s"],"fill":"#12345g"}
            {"type":"op","id":"e","op":"style","shapes":["s"],"opacity":1e308,"fontSize":-0}
            {"type":"op","id":"f","op":"style","shapes":["s"]}
            {"type":"op","id":"g","op":"style","shapes":["s"],"stroke":17}
            {"type":"op","id":"h","op":"text","shape":"s","phase":"begin"}
            {"type":"op","id":"i","op":"text","shape":"s","phase":"update","text":"dr\u0000ft"}
            {"type":"op","id":"j","op":"move","shape":"s","phase":"begin"}
            {"type":"op","id":"k","op":"text","shape":"s","phase":"update","text":"draft"}
            {"type":"op","id":"l","op":"delete","shapes":["s"]}
            {"type":"op","id":"m","op":"undo"}
            {"type":"op","id":"n","op":"text","shape":"t","text":"line\nline\r"}
            {"type":"op","id":"o","op":"text","shape":"t"}
            {"type":"op","id":"p","op":"lock","shapes":["t"],"locked":true}
            {"type":"op","id":"q","op":"text","shape":"t","phase":"begin"}
            {"type":"op","id":"r","op":"style","shapes":["t"],"fill":"blue"}
            {"type":"op","id":"s","op":"clear"}
            {"type":"op","id":"t","op":"undo"}
            {"type":"op","id":"u","op":"text","shape":"t","phase":"end","text":"late"}
            {"type":"op","id":"v","op":"snap","x":1,"y":1,"shape":{"kind":"note","fill":{"h":2,"s":0,"b":0,"a":1}}}

            """#
        Array(input.utf8).withUnsafeBytes(FuzzHarness.run)
    }

    @Test("Groups and duplicates (1.7, P27): good, refused and malformed, with gestures, text edits, locks, deletes, clears and undos")
    func groupsAndDuplicates() {
        let input = #"""
            {"type":"op","id":"a","op":"snap","x":100,"y":100,"shapeId":"s","shape":{"kind":"note","text":"n"}}
            {"type":"op","id":"b","op":"snap","x":120,"y":100,"shapeId":"t"}
            {"type":"op","id":"c","op":"group","shapes":["s","t"]}
            {"type":"op","id":"d","op":"group","shapes":["s"]}
            {"type":"op","id":"e","op":"duplicate","shapes":["s","t","s"],"ids":["u","v"]}
            {"type":"op","id":"f","op":"duplicate","shapes":["s"],"ids":["t"]}
            {"type":"op","id":"g","op":"duplicate","shapes":["s"],"ids":["bad id"]}
            {"type":"op","id":"h","op":"duplicate","shapes":["s"],"ids":[7]}
            {"type":"op","id":"i","op":"move","shape":"u","phase":"begin"}
            {"type":"op","id":"j","op":"ungroup","shapes":["v"]}
            {"type":"op","id":"k","op":"move","shape":"u","phase":"end","dx":5}
            {"type":"op","id":"l","op":"lock","shapes":["v"],"locked":true}
            {"type":"op","id":"m","op":"group","shapes":["v","s"]}
            {"type":"op","id":"n","op":"undo"}
            {"type":"op","id":"o","op":"text","shape":"s","phase":"begin"}
            {"type":"op","id":"p","op":"ungroup","shapes":["t"]}
            {"type":"op","id":"q","op":"delete","shapes":["t"]}
            {"type":"op","id":"r","op":"clear"}
            {"type":"op","id":"s","op":"undo"}
            {"type":"op","id":"t","op":"duplicate","shapes":[]}
            {"type":"op","id":"u","op":"group","shapes":"s"}

            """#
        Array(input.utf8).withUnsafeBytes(FuzzHarness.run)
    }

    @Test("Connectors (1.7, P28): good, refused and malformed, bound, dragged, followed, freed, duplicated, cleared and undone")
    func connectors() {
        let input = #"""
            {"type":"op","id":"a","op":"snap","x":100,"y":100,"shapeId":"s"}
            {"type":"op","id":"b","op":"snap","x":400,"y":100,"shapeId":"t"}
            {"type":"op","id":"c","op":"connect","shapeId":"k","from":{"shape":"s","anchor":"right"},"to":{"x":352,"y":101}}
            {"type":"op","id":"d","op":"connect","from":{"shape":"k","anchor":"top"},"to":{"x":1,"y":1}}
            {"type":"op","id":"e","op":"connect","from":{"shape":"s","u":1e308,"v":0},"to":{"x":1,"y":1}}
            {"type":"op","id":"f","op":"connect","from":{"x":-1e308,"y":0},"to":{"x":1,"y":1}}
            {"type":"op","id":"g","op":"endpoint","shape":"k","end":"to","phase":"begin"}
            {"type":"op","id":"h","op":"move","shape":"t","phase":"begin"}
            {"type":"op","id":"i","op":"endpoint","shape":"k","end":"to","phase":"update","dx":-300,"dy":0}
            {"type":"op","id":"j","op":"delete","shapes":["s"]}
            {"type":"op","id":"k","op":"endpoint","shape":"k","end":"to","phase":"end","dx":1e300,"dy":0}
            {"type":"op","id":"l","op":"undo"}
            {"type":"op","id":"m","op":"move","shape":"k","dx":5,"dy":5}
            {"type":"op","id":"n","op":"scale","shape":"k","factor":1000000}
            {"type":"op","id":"o","op":"duplicate","shapes":["k","t"]}
            {"type":"op","id":"p","op":"endpoint","shape":"t","end":"from"}
            {"type":"op","id":"q","op":"snap","x":1,"y":1,"shape":{"kind":"arrow"}}
            {"type":"op","id":"r","op":"clear"}
            {"type":"op","id":"s","op":"undo"}
            {"type":"op","id":"t","op":"connect","from":{"shape":"t","anchor":"left"},"to":{"shape":"t","anchor":"left"}}

            """#
        Array(input.utf8).withUnsafeBytes(FuzzHarness.run)
    }

    @Test("Selection gestures (1.7, P29): good, refused and malformed, held, lapsed into deletes and clears, undone")
    func selectionGestures() {
        let input = #"""
            {"type":"op","id":"a","op":"snap","x":100,"y":100,"shapeId":"s"}
            {"type":"op","id":"b","op":"snap","x":400,"y":100,"shapeId":"t"}
            {"type":"op","id":"c","op":"connect","shapeId":"k","from":{"shape":"s","anchor":"right"},"to":{"shape":"t","anchor":"left"}}
            {"type":"op","id":"d","op":"move","shapes":["s","t","k"],"phase":"begin"}
            {"type":"op","id":"e","op":"move","shape":"s","phase":"begin"}
            {"type":"op","id":"f","op":"move","shapes":["s","t"],"phase":"update","dx":9}
            {"type":"op","id":"g","op":"move","shapes":["s","t","k"],"phase":"update","dx":1e300,"dy":0}
            {"type":"op","id":"h","op":"delete","shapes":["t"]}
            {"type":"op","id":"i","op":"move","shapes":["s","t","k"],"phase":"end","dx":5,"dy":5}
            {"type":"op","id":"j","op":"move","shapes":["s","k"],"phase":"end","dx":5,"dy":5}
            {"type":"op","id":"k","op":"undo"}
            {"type":"op","id":"l","op":"scale","shapes":["s","k"],"factor":0,"ax":1,"ay":1}
            {"type":"op","id":"m","op":"rotate","shapes":["s","s"],"radians":1}
            {"type":"op","id":"n","op":"rotate","shapes":["s","k"],"phase":"begin","radians":1}
            {"type":"op","id":"o","op":"clear"}
            {"type":"op","id":"p","op":"rotate","shapes":["s","k"],"phase":"end","radians":1}
            {"type":"op","id":"q","op":"undo"}
            {"type":"op","id":"r","op":"move","shapes":["s","k"],"shape":"s","dx":1}

            """#
        Array(input.utf8).withUnsafeBytes(FuzzHarness.run)
    }

    @Test("Orders and locks (1.6): good, refused and malformed, with gestures, deletes, clears and undos around them")
    func ordersAndLocks() {
        let input = """
            {"type":"op","id":"a","op":"snap","x":100,"y":100,"shapeId":"s"}
            {"type":"op","id":"b","op":"snap","x":120,"y":100,"shapeId":"t"}
            {"type":"op","id":"c","op":"order","shapes":["s"],"to":"front"}
            {"type":"op","id":"d","op":"lock","shapes":["s","t"],"locked":true}
            {"type":"op","id":"e","op":"move","shape":"s","phase":"begin"}
            {"type":"op","id":"f","op":"order","shapes":["t"],"to":"backward"}
            {"type":"op","id":"g","op":"delete","shapes":["t"]}
            {"type":"op","id":"h","op":"undo"}
            {"type":"op","id":"i","op":"order","shapes":["s","t"],"to":"sideways"}
            {"type":"op","id":"j","op":"lock","shapes":[],"locked":true}
            {"type":"op","id":"k","op":"lock","shapes":["s"],"locked":"yes"}
            {"type":"op","id":"l","op":"lock","shapes":["t"],"locked":false}
            {"type":"op","id":"m","op":"move","shape":"t","phase":"begin"}
            {"type":"op","id":"n","op":"order","shapes":["t"],"to":"back"}
            {"type":"op","id":"o","op":"clear"}
            {"type":"op","id":"p","op":"undo"}
            {"type":"op","id":"q","op":"order","shapes":["s","t"],"to":"forward"}

            """
        Array(input.utf8).withUnsafeBytes(FuzzHarness.run)
    }

    @Test("Exact moves on a layout canvas that fills up, and on an unbounded one: the scanner and the parser agree on snap, and the journal replays")
    func exactMovesAndLayouts() {
        var lines = (0..<13).map { #"{"type":"op","id":"s\#($0)","op":"snap","x":\#(40 * $0),"y":300}"# }
        lines += [
            #"{"type":"op","id":"m1","op":"move","shape":"s1","dx":700,"dy":-900,"snap":false}"#,
            #"{"type":"op","id":"m2","op":"move","shape":"s2","phase":"begin","snap":false}"#,
            #"{"type":"op","id":"m3","op":"move","shape":"s2","phase":"update","dx":-3,"dy":2}"#,
            #"{"type":"op","id":"m4","op":"move","shape":"s2","phase":"end","dx":-3,"dy":2,"snap":true}"#,
            #"{"type":"op","id":"m5","op":"move","shape":"s3","dx":1,"snap":"no"}"#,
            #"{"type":"op","id":"m6","op":"move","shape":"s3","dx":1,"snap":null}"#,
            #"{"type":"op","id":"m7","op":"delete","shapes":["s4"]}"#,
            #"{"type":"op","id":"m8","op":"snap","x":1000,"y":700}"#,
        ]
        let input = Array((lines.joined(separator: "\n") + "\n").utf8)
        for kind: UInt8 in [3, 4] { ([kind] + input).withUnsafeBytes(FuzzHarness.run) }
        input.withUnsafeBytes(FuzzHarness.run)
    }

    @Test("An import whose shapes sit at both ends of the z range, worked with orders and a lock: refused out_of_range, never trapped on")
    func ordersAtTheEndsOfZ() {
        func shape(_ id: String, _ x: Int, z: Int) -> String {
            #"{"id":"\#(id)","kind":"oval","x":\#(x),"y":96,"w":40,"h":40,"scale":1,"rotation":0,"fill":{"h":0.5,"s":0.5,"b":0.5,"a":1},"hatch":"none","z":\#(z)}"#
        }
        let config = #"{"gridX":{"pitch":32},"gridY":{"pitch":32},"height":768,"layoutPadding":10,"maxShapes":200,"maxSize":4096,"minSize":4,"width":1024,"snapping":{"angleStep":0.2617993877991494,"angleTolerance":0.05235987755982988,"gaps":true,"grid":true,"objects":true,"releaseMargin":4,"threshold":5}}"#
        let max = 9_007_199_254_740_991
        for shapes in [[shape("a", 96, z: -max), shape("b", 110, z: max)], [shape("a", 96, z: max - 1), shape("b", 110, z: max)],
                       [shape("a", 96, z: -max), shape("b", 110, z: -max + 1)]] {
            let body = #"{"id":"fuzz","config":\#(config),"seq":2,"rng":42,"shapes":[\#(shapes.joined(separator: ","))]}"#
            // The import passes the checks, so the harness works the room.
            #expect((try? JSONDecoder().decode(CanvasSnapshot.self, from: Data(body.utf8)))?.problem == nil)
            ([1] + Array(body.utf8)).withUnsafeBytes(FuzzHarness.run)
        }
    }
}
