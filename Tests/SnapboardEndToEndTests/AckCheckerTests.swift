import SnapboardTesting
import Testing

/// The cluster checker on hand-made histories: each kind of fault is counted, and only that one.
@Suite("The cluster's ack checker")
struct AckCheckerTests {
    typealias Sent = AckChecker.Sent
    typealias Row = AckChecker.Row

    /// ann sent a1…a3 and bob b1…b2 on canvas c, interleaved in the log as a1 b1 a2 b2 a3, all acked, fence 1 then 2.
    static let clients = [
        AckChecker.Client(id: "ann", sent: [Sent(canvas: "c", opID: "a1", ackedSeq: 1), Sent(canvas: "c", opID: "a2", ackedSeq: 3),
                                            Sent(canvas: "c", opID: "a3", ackedSeq: 5)]),
        AckChecker.Client(id: "bob", sent: [Sent(canvas: "c", opID: "b1", ackedSeq: 2), Sent(canvas: "c", opID: "b2", ackedSeq: 4)]),
    ]
    static let log = [
        Row(canvas: "c", seq: 1, client: "ann", opID: "a1", fence: 1), Row(canvas: "c", seq: 2, client: "bob", opID: "b1", fence: 1),
        Row(canvas: "c", seq: 3, client: "ann", opID: "a2", fence: 1), Row(canvas: "c", seq: 4, client: "bob", opID: "b2", fence: 2),
        Row(canvas: "c", seq: 5, client: "ann", opID: "a3", fence: 2),
    ]

    func only(_ report: AckChecker.Report, _ field: WritableKeyPath<AckChecker.Report, Int>, _ count: Int) -> Bool {
        var rest = report
        let value = rest[keyPath: field]
        rest[keyPath: field] = 0
        return value == count && rest.isClean
    }

    @Test("A history where every acked op is logged once at its seq, in order, with the fence going up, counts nothing")
    func clean() {
        let report = AckChecker.check(clients: Self.clients, log: Self.log)
        #expect(report.isClean && report.acked == 5 && report.logged == 5, "\(report)")
    }

    @Test("An unacked op may be logged or not (its outcome was unknown to the client); an op resent keeps its first place")
    func unacked() {
        var clients = Self.clients
        clients[0].sent[2].ackedSeq = nil
        clients[0].sent.append(Sent(canvas: "c", opID: "a1", ackedSeq: 1))
        #expect(AckChecker.check(clients: clients, log: Self.log).isClean)
        #expect(AckChecker.check(clients: clients, log: Array(Self.log.prefix(4))).isClean)
    }

    @Test("An acked op missing from the log is lost (and its seq is a gap when later seqs exist)")
    func lost() {
        var log = Self.log
        log.remove(at: 4)
        #expect(only(AckChecker.check(clients: Self.clients, log: log), \.lost, 1))
        log = Self.log
        log.remove(at: 2)
        let report = AckChecker.check(clients: Self.clients, log: log)
        #expect(report.lost == 1 && report.gaps == 1 && report.duplicated == 0 && report.misplaced == 0 && report.reordered == 0, "\(report)")
    }

    @Test("An op id logged twice is duplicated")
    func duplicated() {
        let log = Self.log + [Row(canvas: "c", seq: 6, client: "bob", opID: "b2", fence: 2)]
        #expect(only(AckChecker.check(clients: Self.clients, log: log), \.duplicated, 1))
    }

    @Test("An op logged at another seq than its ack said is misplaced")
    func misplaced() {
        var clients = Self.clients
        clients[1].sent[1].ackedSeq = 3
        #expect(only(AckChecker.check(clients: clients, log: Self.log), \.misplaced, 1))
        clients = Self.clients
        clients[1].sent[1].canvas = "d"
        #expect(only(AckChecker.check(clients: clients, log: Self.log), \.misplaced, 1))
    }

    @Test("Seqs that skip one, or start after 1, are gaps")
    func gaps() {
        let shifted = Self.log.map { Row(canvas: $0.canvas, seq: $0.seq + 1, client: $0.client, opID: $0.opID, fence: $0.fence) }
        let clients = Self.clients.map { c in
            AckChecker.Client(id: c.id, sent: c.sent.map { Sent(canvas: $0.canvas, opID: $0.opID, ackedSeq: $0.ackedSeq.map { $0 + 1 }) })
        }
        #expect(only(AckChecker.check(clients: clients, log: shifted), \.gaps, 1))
        let other = [Row(canvas: "d", seq: 1, client: nil, opID: nil, fence: 1), Row(canvas: "d", seq: 4, client: nil, opID: nil, fence: 1)]
        #expect(only(AckChecker.check(clients: Self.clients, log: Self.log + other), \.gaps, 2))
    }

    @Test("A fence lower than the one at the seq before is counted, each time")
    func fenceDrops() {
        var log = Self.log
        log[2].fence = 0
        log[4].fence = 1
        #expect(only(AckChecker.check(clients: Self.clients, log: log), \.fenceDrops, 2))
    }

    @Test("A client's op logged before one it sent earlier is reordered")
    func reordered() {
        var clients = Self.clients
        clients[0].sent.swapAt(1, 2)
        #expect(only(AckChecker.check(clients: clients, log: Self.log), \.reordered, 1))
        // Order is per canvas: ops on two canvases interleave freely.
        let two = [AckChecker.Client(id: "ann", sent: [Sent(canvas: "x", opID: "1", ackedSeq: 2), Sent(canvas: "y", opID: "2", ackedSeq: 1),
                                                        Sent(canvas: "x", opID: "3", ackedSeq: 3)])]
        let log = [Row(canvas: "x", seq: 1, client: nil, opID: nil, fence: nil), Row(canvas: "x", seq: 2, client: "ann", opID: "1", fence: nil),
                   Row(canvas: "y", seq: 1, client: "ann", opID: "2", fence: nil), Row(canvas: "x", seq: 3, client: "ann", opID: "3", fence: nil)]
        #expect(AckChecker.check(clients: two, log: log).isClean)
    }

    @Test("psql's unaligned rows parse, NULL as empty; a malformed line is an error")
    func parse() throws {
        let rows = try Row.parse(psql: "c|1|ann|a1|3\nc|2|||\n")
        #expect(rows == [Row(canvas: "c", seq: 1, client: "ann", opID: "a1", fence: 3), Row(canvas: "c", seq: 2, client: nil, opID: nil, fence: nil)])
        #expect(throws: AckChecker.BadRow.self) { try Row.parse(psql: "c|x|ann|a1|3") }
        #expect(throws: AckChecker.BadRow.self) { try Row.parse(psql: "c|1|ann|a1") }
        #expect(throws: AckChecker.BadRow.self) { try Row.parse(psql: "c|-1|ann|a1|1") }
    }
}
