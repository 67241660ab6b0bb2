import ArgumentParser
import Foundation
import SnapboardCore

/// `snapboard-bench`: the benchmarks `make bench` runs, each printing its figures.
@main
struct SnapboardBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapboard-bench",
        abstract: "Snapboard's benchmarks.",
        subcommands: [SnappingBench.self, StorageBench.self, CommitLatencyBench.self, ResumeBench.self, CanvasesBench.self, StormBench.self, DragBench.self,
                      HandoverBench.self])
}

/// Writes a benchmark's figures as `{"<key>": value}` to `path` (pretty, sorted keys), when a path was given.
func writeFigures(_ value: some Encodable, as key: String, to path: String?) throws {
    guard let path else { return }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode([key: value]).write(to: URL(fileURLWithPath: path))
    print("wrote \(path)")
}

/// Snaps `count` shapes onto `canvas`, the i-th at `position(i)`, cycling through six kinds.
func seedShapes(_ count: Int, on canvas: inout Canvas, at position: (Int) -> Point) throws {
    let someone = Participant(id: "seed")
    for i in 0..<count {
        _ = try canvas.apply(.snap(at: position(i), shapeID: "s\(i)", spec: ShapeSpec(kind: ShapeKind.names[i % 6])), by: someone)
    }
}

/// Seconds in `d`.
func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

/// `--scratch`: a folder for a benchmark's scratch databases, made before it runs and removed after.
struct ScratchFolder: ParsableArguments {
    @Option(help: "Directory for the scratch databases (removed afterwards).")
    var scratch = "bench/scratch"

    func create() throws { try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true) }

    func remove() { try? FileManager.default.removeItem(atPath: scratch) }
}
