/// The cluster tests' checker, in the style of Jepsen's set test: what every client was told (its acks) set
/// against what the database holds at the end (the op log). Every acked op must be in the log exactly once,
/// at the seq it was acked with; each canvas's seqs run 1, 2, 3… without a hole; the fencing token never
/// goes down along the seqs; and each client's ops on a canvas are logged in the order it sent them.
public enum AckChecker {
    /// One op a client sent, in its send order, and what it was told about it.
    public struct Sent: Sendable, Hashable {
        public var canvas: String
        public var opID: String
        /// The seq of its ack; nil while unanswered, rejected, or acked `unchanged` (no seq taken).
        public var ackedSeq: Int?
        /// The canvas epoch (or fence) the session that got the ack was told, when known.
        public var epoch: String?

        public init(canvas: String, opID: String, ackedSeq: Int? = nil, epoch: String? = nil) {
            self.canvas = canvas
            self.opID = opID
            self.ackedSeq = ackedSeq
            self.epoch = epoch
        }
    }

    /// Everything one client sent, in the order it first sent it (a resend keeps the op's place).
    public struct Client: Sendable, Hashable {
        public var id: String
        public var sent: [Sent]

        public init(id: String, sent: [Sent]) {
            self.id = id
            self.sent = sent
        }
    }

    /// One row of the op log: `SELECT canvas, seq, client, op_id, fence FROM oplog`.
    public struct Row: Sendable, Hashable {
        public var canvas: String
        public var seq: Int
        public var client: String?
        public var opID: String?
        public var fence: Int?

        public init(canvas: String, seq: Int, client: String?, opID: String?, fence: Int?) {
            self.canvas = canvas
            self.seq = seq
            self.client = client
            self.opID = opID
            self.fence = fence
        }

        /// Rows from `psql -At -F '|'` output of `SELECT canvas, seq, client, op_id, fence …`; an empty field is
        /// NULL. A line that is not five fields with a whole seq is an error, not a row skipped.
        public static func parse(psql text: String, separator: Character = "|") throws -> [Row] {
            var rows: [Row] = []
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                let fields = line.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
                guard fields.count == 5, let seq = Int(fields[1]), seq >= 0 else { throw BadRow(line: String(line)) }
                let fence: Int?
                if fields[4].isEmpty { fence = nil } else {
                    guard let f = Int(fields[4]) else { throw BadRow(line: String(line)) }
                    fence = f
                }
                rows.append(Row(canvas: fields[0], seq: seq, client: fields[2].isEmpty ? nil : fields[2],
                                opID: fields[3].isEmpty ? nil : fields[3], fence: fence))
            }
            return rows
        }
    }

    public struct BadRow: Error, CustomStringConvertible {
        public var line: String
        public var description: String { "not a row of canvas|seq|client|op_id|fence: \(line)" }
    }

    /// The counts; every one of them is 0 in a correct run.
    public struct Report: Sendable, CustomStringConvertible {
        /// Acked with a seq, and not in the log.
        public var lost = 0
        /// An op (client and op id) logged more than once.
        public var duplicated = 0
        /// Logged at another seq (or canvas) than it was acked with.
        public var misplaced = 0
        /// Seqs missing between 1 and a canvas's last seq (or a seq logged twice).
        public var gaps = 0
        /// Places where the fence goes down from one seq to the next.
        public var fenceDrops = 0
        /// A client's op logged before (at a lower seq than) an op the client sent earlier on that canvas.
        public var reordered = 0
        /// For scale: ops acked with a seq, and rows in the log.
        public var acked = 0
        public var logged = 0
        /// The first few findings, said in words.
        public var examples: [String] = []
        /// The first few reordered pairs: the client, the op it sent earlier and the one it sent later but
        /// that was logged before it.
        public var reorders: [(client: String, earlier: String, later: String)] = []

        public init() {}

        public var isClean: Bool { lost == 0 && duplicated == 0 && misplaced == 0 && gaps == 0 && fenceDrops == 0 && reordered == 0 }

        public var description: String {
            "lost \(lost), duplicated \(duplicated), misplaced \(misplaced), gaps \(gaps), fence drops \(fenceDrops), "
                + "reordered \(reordered) (\(acked) acked, \(logged) logged)" + (examples.isEmpty ? "" : ": " + examples.joined(separator: "; "))
        }

        mutating func note(_ what: String) { if examples.count < 10 { examples.append(what) } }
    }

    public static func check(clients: [Client], log: [Row]) -> Report {
        var report = Report()
        report.logged = log.count
        // Where each op was logged: (client, op id) → rows.
        struct Key: Hashable { var client: String; var op: String }
        var logged: [Key: [Row]] = [:]
        for row in log { if let c = row.client, let o = row.opID { logged[Key(client: c, op: o), default: []].append(row) } }
        for (key, rows) in logged where rows.count > 1 {
            report.duplicated += rows.count - 1
            report.note("\(key.client)'s \(key.op) logged \(rows.count) times at \(rows.map { "\($0.canvas)#\($0.seq)" })")
        }
        // Per canvas: seqs contiguous from 1, the fence never going down.
        let canvases = Dictionary(grouping: log, by: \.canvas)
        for (canvas, rows) in canvases.sorted(by: { $0.key < $1.key }) {
            let sorted = rows.sorted { $0.seq < $1.seq }
            let distinct = Set(sorted.map(\.seq))
            let last = sorted.last?.seq ?? 0
            let missing = (last >= 1 ? last : 0) - distinct.filter { $0 >= 1 }.count
            let twice = sorted.count - distinct.count
            if missing + twice > 0 || distinct.contains(0) {
                report.gaps += missing + twice + (distinct.contains(0) ? 1 : 0)
                report.note("\(canvas): seqs not 1…\(last) once each (\(missing) missing, \(twice) twice)")
            }
            var previous: Row?
            for row in sorted {
                if let p = previous, let a = p.fence, let b = row.fence, b < a {
                    report.fenceDrops += 1
                    report.note("\(canvas): fence \(a) at seq \(p.seq), then \(b) at seq \(row.seq)")
                }
                previous = row
            }
        }
        for client in clients {
            // Acked ops: in the log once, at the acked seq and canvas.
            var seen: Set<String> = []
            for op in client.sent where seen.insert(op.canvas + "\u{0}" + op.opID).inserted {
                guard let seq = op.ackedSeq else { continue }
                report.acked += 1
                guard let rows = logged[Key(client: client.id, op: op.opID)], !rows.isEmpty else {
                    report.lost += 1
                    report.note("\(client.id)'s \(op.opID) acked at \(op.canvas)#\(seq), not in the log")
                    continue
                }
                if !rows.contains(where: { $0.canvas == op.canvas && $0.seq == seq }) {
                    report.misplaced += 1
                    report.note("\(client.id)'s \(op.opID) acked at \(op.canvas)#\(seq), logged at \(rows.map { "\($0.canvas)#\($0.seq)" })")
                }
            }
            // Send order kept in the log, per canvas: each logged op after every earlier-sent logged op.
            var highest: [String: (seq: Int, op: String)] = [:]
            seen = []
            for op in client.sent where seen.insert(op.canvas + "\u{0}" + op.opID).inserted {
                guard let row = logged[Key(client: client.id, op: op.opID)]?.first(where: { $0.canvas == op.canvas }) else { continue }
                if let before = highest[op.canvas], row.seq < before.seq {
                    report.reordered += 1
                    if report.reorders.count < 10 { report.reorders.append((client.id, before.op, op.opID)) }
                    report.note("\(client.id)'s \(op.opID) logged at \(op.canvas)#\(row.seq), before \(before.op) sent earlier (#\(before.seq))")
                } else {
                    highest[op.canvas] = (row.seq, op.opID)
                }
            }
        }
        return report
    }
}
