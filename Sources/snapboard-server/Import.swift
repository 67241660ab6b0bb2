import ArgumentParser
import Foundation
import SnapboardCore
import SnapboardStore

/// Loads a canvas exported as JSON, replacing the stored canvas of the same id: a restore.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replaces a canvas with one exported as JSON.",
        discussion: "Run it while the server is stopped: it refuses to run while a server has the file, and a server does not start while it runs.")

    @OptionGroup var storage: StorageOptions

    @Option(help: "Read from this file instead of standard input.")
    var input: String?

    func validate() throws {
        try storage.refuseDatabase("import", instead: "PUT the export to /v1/canvases/{id} on any node, which sends it on to the canvas's owner (docs/http-api.md)")
    }

    func run() throws {
        let data = try input.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } ?? FileHandle.standardInput.readDataToEndOfFile()
        let snapshot = try JSONDecoder().decode(CanvasSnapshot.self, from: data)
        if let problem = snapshot.problem { throw ValidationError("not a canvas export: \(problem)") }
        let lock = try storage.lock()
        try withExtendedLifetime(lock) { try storage.open().replace(with: snapshot) }
        print("imported canvas \(snapshot.id) at seq \(snapshot.seq) with \(snapshot.shapes.count) shapes")
    }
}
