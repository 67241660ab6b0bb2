import Foundation
import SnapboardClient
import SnapboardProtocol

struct ScriptError: Error, CustomStringConvertible {
    var description: String
}

/// Runs script commands against a session, one line at a time.
struct ScriptRunner {
    let session: CanvasSession
    let timeout: Double
    /// Messages before this index are behind the last `expect`'s match.
    private var seen = 0

    init(session: CanvasSession, timeout: Double) {
        self.session = session
        self.timeout = timeout
    }

    mutating func run(line raw: String, number lineNumber: Int) throws {
        let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let command = words.first else { return }
        let args = Array(words.dropFirst())
        func fail(_ why: String) -> ScriptError { ScriptError(description: "line \(lineNumber): \(why): \(raw)") }
        func number(_ i: Int) throws -> String {
            guard i < args.count, Double(args[i]) != nil else { throw fail("expected a number") }
            return args[i]
        }
        switch command {
        case "snap":
            guard args.count >= 2 else { throw fail("snap X Y [KIND] [id=ID]") }
            var fields = #""x":\#(try number(0)),"y":\#(try number(1))"#
            for extra in args.dropFirst(2) {
                if extra.hasPrefix("id=") { fields += #","shapeId":"\#(extra.dropFirst(3))""# } else { fields += #","shape":{"kind":"\#(extra)"}"# }
            }
            session.send(op: "snap", fields, commits: true)
        case "move", "scale", "rotate":
            guard args.count >= 2 else { throw fail("\(command) ID PHASE …") }
            let shape = args[0]
            var rest = Array(args.dropFirst())
            var phase: String?
            if ["begin", "update", "end"].contains(rest[0]) { phase = rest.removeFirst() }
            var fields = #""shape":"\#(shape)""# + (phase.map { #","phase":"\#($0)""# } ?? "")
            switch (command, rest.count) {
            case ("move", 2):
                guard Double(rest[0]) != nil, Double(rest[1]) != nil else { throw fail("move takes DX DY") }
                fields += #","dx":\#(rest[0]),"dy":\#(rest[1])"#
            case ("scale", 1), ("scale", 4):
                guard Double(rest[0]) != nil else { throw fail("scale takes a factor") }
                fields += #","factor":\#(rest[0])"#
                if rest.count == 4 {
                    guard rest[1] == "at", Double(rest[2]) != nil, Double(rest[3]) != nil else { throw fail("scale … at AX AY") }
                    fields += #","ax":\#(rest[2]),"ay":\#(rest[3])"#
                }
            case ("rotate", 1):
                guard Double(rest[0]) != nil else { throw fail("rotate takes radians") }
                fields += #","radians":\#(rest[0])"#
            case (_, 0) where phase == "begin":
                break
            default:
                throw fail("wrong arguments")
            }
            session.send(op: command, fields, commits: phase == nil || phase == "end")
        case "clear":
            session.send(op: "clear", commits: true)
        case "ping":
            session.ping()
        case "sleep":
            let ms = Double(try number(0))!
            session.pump(timeout: ms / 1000)
        case "wait-seq":
            let target = Int(Double(try number(0))!)
            guard session.pump(timeout: timeout, until: { session.replica.seq >= target }) else {
                throw fail("seq \(session.replica.seq) never reached \(target)")
            }
        case "expect":
            guard let type = args.first else { throw fail("expect TYPE [KEY=VALUE …]") }
            let wanted = try args.dropFirst().map { pair -> (String, JSONValue) in
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw fail("KEY=VALUE") }
                return (parts[0], (try? JSONValue.parse(Array(parts[1].utf8))) ?? .string(parts[1]))
            }
            let start = seen
            var found: Int?
            let ok = session.pump(timeout: timeout) {
                let all = session.received
                found = (start..<all.count).first { i in
                    all[i]["type"] == .string(type) && wanted.allSatisfy { all[i][$0.0] == $0.1 }
                }
                return found != nil
            }
            if let found { seen = found + 1 }
            guard ok else { throw fail("no such \(type) message") }
        default:
            throw fail("unknown command '\(command)'")
        }
        session.pump(timeout: 0.001)
    }

    /// Waits for every committing op to be answered, so a script's last ops are not cut off.
    func finish() {
        session.pump(timeout: timeout) { session.pending.ops.allSatisfy { !$0.commits } }
    }
}
