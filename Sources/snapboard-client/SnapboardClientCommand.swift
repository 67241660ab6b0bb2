import ArgumentParser
import Foundation
import SnapboardClient
import SnapboardCore
import SnapboardProtocol
import SnapboardLWSClient

/// `snapboard-client`: talks to a canvas from a terminal.
@main
struct SnapboardClientCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapboard-client",
        abstract: "Talks to a Snapboard canvas from a terminal.",
        discussion: """
            With no mode flag it opens a full-screen view: click empty space to snap a shape, drag shapes to move them, \
            + and - scale the selected shape, r and R rotate it, the arrow keys nudge it, x or Delete deletes it, \
            u undoes your own last change and U redoes it, t or Enter edits its text in the status line (Enter \
            saves, Escape cancels), a or A draws an arrow or a line from it to the next shape clicked, ] and [ \
            bring it forward and send it backward, } and { to the front and back, l locks or unlocks it, k cycles \
            the kind of new shapes, the wheel or z and Z zoom (0 shows everything), Ctrl+arrows pan, c clears (after asking), \
            ? shows help, q or Ctrl-C quits. The status line shows the canvas, the session, the seq, the peers, \
            the round trip, the connection, the zoom, what just snapped and who else is dragging.

            --script runs commands from a file (or - for standard input) and prints every server message as \
            one JSON line; --dump prints the canvas once as text, --size characters wide and high.

            Script commands, one per line (# starts a comment):
              snap X Y [KIND] [id=ID]          a tap; KIND is dot, roundedRect, oval, triangle, polygon, star, fractal, text, note
              move ID begin | update DX DY | end DX DY | DX DY  [exact]   a drag (the last form is one-shot); exact: no snapping
              scale ID begin | update F | end F | F [at AX AY]      a pinch about AX AY (default: the centre)
              rotate ID begin | update R | end R | R                 a twist, in radians
              clear                            removes every shape
              delete ID [ID ...]               removes these shapes
              undo | redo                      reverts your own last change | re-applies what undo reverted
              text ID [begin|update|end] [TEXT]  sets a shape's text: the rest of the line, \\n a line feed
              connect FROM TO [line|arrow] [id=ID]  a connector; an end is X,Y or SHAPE[:ANCHOR] (center, top, right, bottom, left)
              order front|back|forward|backward ID [ID ...]   restacks shapes
              lock ID [ID ...] | unlock ID [ID ...]           locks or unlocks shapes
              ping                             measures the round trip
              wait-seq N                       waits until the replica reaches seq N
              expect TYPE [KEY=VALUE ...]      waits for the next TYPE message with those fields (VALUE is JSON or text)
              sleep MS                         handles messages for MS milliseconds
            The script fails (exit 1) when a wait-seq or expect times out (--timeout seconds).
            """)

    @Argument(help: "The canvas URL, ws://HOST:PORT/v1/canvases/ID (optional query: name, zoom, role).")
    var url: String

    @Option(help: "Run commands from this file, or - for standard input.")
    var script: String?

    @Flag(help: "Print the canvas once as text and exit.")
    var dump = false

    @Option(help: "The size of --dump's picture in characters, COLUMNSxROWS.")
    var size = "72x24"

    @Option(help: "A stable client id for exactly-once across reconnects (default: a new one).")
    var client: String?

    @Option(help: "Seconds a wait-seq or expect may take.")
    var timeout = 10.0

    @Flag(help: "No terminal bell on haptics.")
    var quiet = false

    @Option(help: "An access token, for a server that requires one (SNAPBOARD_TOKEN; prefer the variable, which ps does not show).")
    var token: String?

    @Option(help: ArgumentHelp("For wss://: trust the server certificates in this PEM file (a self-signed server's own certificate, or a private CA) instead of the system's (SNAPBOARD_CA_FILE).", valueName: "file"))
    var caFile: String?

    /// The URL with the token added to its query, when there is one.
    var connectURL: String {
        guard let token = token ?? ProcessInfo.processInfo.environment["SNAPBOARD_TOKEN"], !token.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + "token=" + token
    }

    func validate() throws {
        guard url.hasPrefix("ws://") || url.hasPrefix("wss://") else { throw ValidationError("the URL must start with ws:// or wss://") }
        guard dumpSize != nil else { throw ValidationError("--size is COLUMNSxROWS, each 1...1000, such as 128x48") }
    }

    /// `--size` as numbers.
    var dumpSize: (columns: Int, rows: Int)? {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, (1...1000).contains(parts[0]), (1...1000).contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }

    func run() throws {
        let session = CanvasSession(url: connectURL, clientID: client ?? "cli-\(ProcessInfo.processInfo.processIdentifier)-\(Int(Date().timeIntervalSince1970))", transport: { [caFile] in
            try WebSocketClient.transport(url: $0, caFile: caFile ?? ProcessInfo.processInfo.environment["SNAPBOARD_CA_FILE"])
        })
        if dump {
            try session.connect()
            guard session.pump(timeout: timeout, until: { session.replica.seq >= 0 }) else {
                FileHandle.standardError.write(Data("snapboard-client: no welcome within \(timeout) s\n".utf8))
                throw ExitCode(1)
            }
            let (columns, rows) = dumpSize ?? (72, 24)
            print(CanvasText.render(session.replica, columns: columns, rows: rows))
            session.close()
            return
        }
        guard let script else {
            try session.connect()
            InteractiveView(session: session, quiet: quiet).run()
            session.close()
            return
        }
        var runner = ScriptRunner(session: session, timeout: timeout)
        let text: String
        if script == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            text = try String(contentsOfFile: script, encoding: .utf8)
        }
        session.onMessage = { m in
            var w = JSONWriter()
            w.value(m)
            print(String(decoding: w.bytes, as: UTF8.self))
            fflush(nil)
        }
        try session.connect()
        do {
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                try runner.run(line: String(line), number: n + 1)
            }
            runner.finish()
        } catch let error as ScriptError {
            FileHandle.standardError.write(Data("snapboard-client: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
        session.close()
    }
}
