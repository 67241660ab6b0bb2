import ArgumentParser
import Foundation
import SnapboardCore
import SnapboardStore

/// Writes one canvas, as recovered from its checkpoint and log, to JSON: a backup.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints a canvas as JSON (a snapshot that import takes back).",
        discussion: "Safe while the server runs; the export holds what was durable when it ran.")

    @OptionGroup var storage: StorageOptions

    @Option(help: "The canvas to export.")
    var canvas: String

    @Option(help: "Write to this file instead of standard output.")
    var output: String?

    func validate() throws {
        try storage.refuseDatabase("export", instead: "GET /v1/canvases/{id}/export from any node (docs/http-api.md)")
    }

    func run() throws {
        let store = try storage.open()
        let stored = try store.load(canvas)
        guard stored.snapshot != nil || !stored.log.isEmpty else { throw ValidationError("no canvas \(canvas) in \(storage.data)") }
        let recovered = try stored.recovered(id: canvas, default: CanvasConfig())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let json = try encoder.encode(recovered.committedSnapshot)
        if let output {
            try json.write(to: URL(fileURLWithPath: output))
        } else {
            FileHandle.standardOutput.write(json + Data("\n".utf8))
        }
    }
}
