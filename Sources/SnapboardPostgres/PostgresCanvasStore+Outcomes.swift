import Foundation
import Logging
import SnapboardCore
import SnapboardLock
import SnapboardStore

/// Commits whose outcome is unknown (the connection lost or closed during COMMIT), settled from the log
/// under the fence: acked, written again with the same seqs, or refused so the canvas is reloaded.
extension PostgresCanvasStore {
    /// What the log says of a batch whose COMMIT's outcome is unknown.
    enum Outcome: Equatable {
        /// Every canvas's log holds the batch's last commit, identical: it committed.
        case committed
        /// Every canvas's head is just before the batch's first commit: it did not.
        case notCommitted
        /// Anything else: the canvas must be reloaded.
        case other
    }

    /// Reads, under the rows' locks, whether the batch's commits are in the log.
    private func outcome(of entries: [JournalEntry], _ c: PostgresConnection) throws -> Outcome {
        var byCanvas: [String: [CommitRecord]] = [:]
        for case .commit(let r) in entries { byCanvas[r.canvas, default: []].append(r) }
        // A batch without commits (checkpoints, runs) is idempotent: writing it again is always right.
        guard !byCanvas.isEmpty else { return .notCommitted }
        var seen: Set<Outcome> = []
        for (canvas, records) in byCanvas {
            guard let first = records.map(\.seq).min(), let last = records.max(by: { $0.seq < $1.seq }) else { continue }
            let rows = try c.query("""
                SELECT (SELECT client FROM oplog WHERE canvas = $1 AND seq = $2) AS client,
                       (SELECT op_id FROM oplog WHERE canvas = $1 AND seq = $2) AS op_id,
                       (SELECT op FROM oplog WHERE canvas = $1 AND seq = $2) AS op,
                       GREATEST((SELECT max(seq) FROM oplog WHERE canvas = $1), (SELECT max(seq) FROM snapshot WHERE canvas = $1), 0) AS head
                """, [.text(canvas), .int(Int64(last.seq))])
            let head = try rows.int(0, "head", in: CanvasRows.seqs) ?? 0
            if let op = try rows.bytes(0, "op") {
                let (client, opID) = (try rows.text(0, "client"), try rows.text(0, "op_id"))
                let same = op == last.op.loggedBytes && client == last.client && opID == last.opID
                seen.insert(same ? .committed : .other)
            } else {
                seen.insert(head == first - 1 ? .notCommitted : .other)
            }
        }
        return seen.count == 1 ? seen.first! : .other
    }

    /// Rule 4 (docs/architecture.md): the connection was lost or closed during COMMIT. Reconnect, lock the
    /// rows again and check the fence; if the log holds the batch, it committed; if the head is just before
    /// it, write it again with the same seqs; otherwise throw, and the server reloads the canvas. Retries
    /// reconnecting (a failover takes seconds) for as long as the lease (or the commit timeout, if longer).
    func resolve(_ entries: [JournalEntry], after lost: PostgresError, _ s: inout Session) throws {
        logger.warning("a commit's outcome is unknown (\(lost)): reading the log to resolve it")
        let canvases = Set(entries.map(\.canvas))
        // As long as a failover may take: past the lease, the node is stale and may not ack anyway.
        let deadline = ContinuousClock.now + max(options.commitTimeout, options.lease)
        var lastError: any Error = lost
        while ContinuousClock.now < deadline {
            let c: PostgresConnection
            do { c = try connection(&s) } catch {
                lastError = error
                Thread.sleep(forTimeInterval: 0.2)
                continue
            }
            do {
                try c.query("BEGIN")
                let lostCanvases = try lockAndCheck(canvases, s.fences, c)
                guard lostCanvases.isEmpty else {
                    c.rollback()
                    figures.withLock { $0.unknownOutcomes.reloaded += 1 }
                    // Whether the batch committed is not ours to tell any more: the new owner reloads.
                    throw Fenced(canvases: canvases)
                }
                switch try outcome(of: entries, c) {
                case .committed:
                    c.rollback()
                    guard lease.isFresh else { throw LeaseLost() }
                    figures.withLock { $0.unknownOutcomes.acked += 1 }
                    logger.info("the commit of unknown outcome is in the log: acked")
                    return
                case .notCommitted:
                    let fences = s.fences
                    try CanvasRows.write(entries, fence: { fences[$0] ?? 0 }, c)
                    guard lease.isFresh else { throw LeaseLost() }
                    try c.commit()
                    figures.withLock { $0.unknownOutcomes.retried += 1 }
                    logger.info("the commit of unknown outcome was not in the log: written again with the same seqs")
                    return
                case .other:
                    c.rollback()
                    figures.withLock { $0.unknownOutcomes.reloaded += 1 }
                    throw UnknownCommitOutcome(canvases: canvases, reason: "the log holds neither the batch nor the commit just before it")
                }
            } catch let error as PostgresError where error.kind == .notReplicated {
                // Committed on the primary only: never to be read back as an ack.
                figures.withLock { $0.unknownOutcomes.reloaded += 1 }
                throw error
            } catch let error as PostgresError {
                // Lost again, timed out again, or a lock still held by the session that was committing: retry.
                c.rollback()
                if !c.isOpen { s.connection = nil }
                lastError = error
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        figures.withLock { $0.unknownOutcomes.reloaded += 1 }
        throw UnknownCommitOutcome(canvases: canvases, reason: "could not read the log within the lease: \(lastError)")
    }
}

/// A batch whose COMMIT's outcome could not be told from the log: the canvases must be reloaded (their
/// logs then say what committed, and clients' resends are answered exactly once).
public struct UnknownCommitOutcome: Error, Sendable, CustomStringConvertible {
    public var canvases: Set<String>
    public var reason: String

    public var description: String { "the outcome of a commit to \(canvases.sorted().joined(separator: ", ")) is unknown: \(reason)" }
}
