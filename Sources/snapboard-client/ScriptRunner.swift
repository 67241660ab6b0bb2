import Foundation
import SnapboardClient
import SnapboardCore
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
        func number(_ word: String) throws -> Double {
            guard let v = Double(word) else { throw fail("expected a number") }
            return v
        }
        switch command {
        case "snap":
            guard args.count >= 2 else { throw fail("snap X Y [KIND] [id=ID]") }
            var shapeID: String?
            var spec = ShapeSpec()
            for extra in args.dropFirst(2) {
                if extra.hasPrefix("id=") { shapeID = String(extra.dropFirst(3)) } else { spec.kind = extra }
            }
            session.send(.snap(at: Point(x: try number(args[0]), y: try number(args[1])), shapeID: shapeID, spec: spec))
        case "move", "scale", "rotate":
            guard args.count >= 2 else { throw fail("\(command) ID PHASE …") }
            let shape = args[0]
            var rest = Array(args.dropFirst())
            let phase = GesturePhase(rawValue: rest[0])
            if phase != nil { rest.removeFirst() }
            // A move may end in `exact`: `"snap": false`, the shape moves by exactly DX DY (P13).
            let exact = command == "move" && rest.last == "exact"
            if exact { rest.removeLast() }
            switch (command, rest.count) {
            case ("move", 2):
                session.send(.move(shape, phase: phase, translation: Point(x: try number(rest[0]), y: try number(rest[1])), snap: !exact))
            case ("scale", 1), ("scale", 4):
                var anchor: Point?
                if rest.count == 4 {
                    guard rest[1] == "at" else { throw fail("scale … at AX AY") }
                    anchor = Point(x: try number(rest[2]), y: try number(rest[3]))
                }
                session.send(.scale(shape, phase: phase, factor: try number(rest[0]), anchor: anchor))
            case ("rotate", 1):
                session.send(.rotate(shape, phase: phase, radians: try number(rest[0])))
            case ("move", 0) where phase == .begin:
                session.send(.move(shape, phase: .begin, translation: Point(x: 0, y: 0), snap: !exact))
            case ("scale", 0) where phase == .begin:
                session.send(.scale(shape, phase: .begin, factor: 1, anchor: nil))
            case ("rotate", 0) where phase == .begin:
                session.send(.rotate(shape, phase: .begin, radians: 0))
            default:
                throw fail("wrong arguments")
            }
        case "text":
            // The text is the rest of the line as typed, after the id and an optional phase; \n breaks a line.
            guard let shape = args.first else { throw fail("text ID [begin|update|end] [TEXT]") }
            let phase = args.count > 1 ? GesturePhase(rawValue: args[1]) : nil
            let text = Self.rest(of: line, after: phase == nil ? 2 : 3).replacingOccurrences(of: "\\n", with: "\n")
            session.send(.text(shape, phase: phase, text: phase == .begin && text.isEmpty ? nil : text))
        case "connect":
            guard args.count >= 2 else { throw fail("connect FROM TO [line|arrow] [id=ID]") }
            var shapeID: String?
            var spec = ShapeSpec(kind: "arrow")
            for extra in args.dropFirst(2) {
                if extra.hasPrefix("id=") { shapeID = String(extra.dropFirst(3)) } else { spec.kind = extra }
            }
            func end(_ word: String) throws -> EndSpec {
                let xy = word.split(separator: ",", omittingEmptySubsequences: false)
                if xy.count == 2, let x = Double(xy[0]), let y = Double(xy[1]) { return .at(Point(x: x, y: y)) }
                let parts = word.split(separator: ":", maxSplits: 1).map(String.init)
                guard let shape = parts.first else { throw fail("an end is X,Y or SHAPE[:ANCHOR]") }
                guard let anchor = parts.count == 2 ? Anchor(name: parts[1]) : .center else {
                    throw fail("an anchor is center, top, right, bottom or left")
                }
                return .bound(Binding(shape: shape, anchor: anchor))
            }
            session.send(.connect(shapeID: shapeID, spec: spec, from: try end(args[0]), to: try end(args[1])))
        case "order":
            guard args.count >= 2, let to = StackMove(rawValue: args[0]) else { throw fail("order front|back|forward|backward ID [ID ...]") }
            session.send(.order(Array(args.dropFirst()), to: to))
        case "lock", "unlock":
            guard !args.isEmpty else { throw fail("\(command) ID [ID ...]") }
            session.send(.lock(args, locked: command == "lock"))
        case "clear":
            session.send(.clear)
        case "delete":
            guard !args.isEmpty else { throw fail("delete ID [ID ...]") }
            session.send(.delete(args.map { String($0) }))
        case "undo":
            session.send(.undo)
        case "redo":
            session.send(.redo)
        case "ping":
            session.ping()
        case "sleep":
            guard let word = args.first else { throw fail("sleep MS") }
            let ms = try number(word)
            session.pump(timeout: ms / 1000)
        case "wait-seq":
            guard let word = args.first else { throw fail("wait-seq N") }
            let target = Int(try number(word))
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

    /// What follows the first `words` words of `line`, less the one space after them.
    static func rest(of line: String, after words: Int) -> String {
        var rest = Substring(line)
        for _ in 0..<words {
            rest = rest.drop(while: { $0 == " " || $0 == "\t" })
            rest = rest.drop(while: { $0 != " " && $0 != "\t" })
        }
        if let first = rest.first, first == " " || first == "\t" { rest = rest.dropFirst() }
        return String(rest)
    }

    /// Waits for every committing op to be answered, so a script's last ops are not cut off.
    func finish() {
        session.pump(timeout: timeout) { session.pending.ops.allSatisfy { !$0.commits } }
    }
}
