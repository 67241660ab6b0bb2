import DequeModule
import Dispatch
import Foundation
import HeapModule
import Histogram
import SnapboardClient
import SnapboardCore
import SnapboardLoad
import SnapboardProtocol
import SnapboardLWSClient

/// What the load tool does with each message: latencies, acks, rejects and the replicas for the convergence check.
extension LoadRun {
    /// Most messages to client `i`: live deltas, skimmed where the transport holds them, without an
    /// allocation. A frame the skim has just read for another client of the canvas is not read again; a new
    /// one is copied into the canvas's reused buffer for the next.
    func received(_ i: Int, lent message: UnsafeRawBufferPointer) {
        let now = monotonicMicros()
        if isStormWelcome(i, message) { return welcomed(i, at: now) }
        let canvas = clients[i].canvas
        if !lastSkimmed[canvas].holds(message) {
            guard FrameSkim.live(message, tags: &skimTags, ends: &skimEnds) == .handled else {
                return received(i, Array(message), at: now)
            }
            // The skim's buffers become the canvas's, and the canvas's old ones the next skim's.
            lastSkimmed[canvas].bytes.removeAll(keepingCapacity: true)
            lastSkimmed[canvas].bytes.append(contentsOf: message)
            swap(&lastSkimmed[canvas].tags, &skimTags)
            swap(&lastSkimmed[canvas].ends, &skimEnds)
        }
        var from = 0
        for end in lastSkimmed[canvas].ends {
            delivered(lastSkimmed[canvas].tags[from..<end], to: i, at: now)
            from = end
        }
    }

    static let welcomeStart = Array(#"{"type":"welcome""#.utf8)

    /// A storm watcher's welcome is the whole canvas; the server writes its `type` first, so its first
    /// bytes say what it is, and the megabytes after them need no reading.
    func isStormWelcome(_ i: Int, _ message: some Collection<UInt8>) -> Bool {
        clients[i].storm && clients[i].welcomes == 0 && message.starts(with: Self.welcomeStart)
    }

    /// A message to client `i` read in full: each message skimmed, and those the replica or the report needs parsed.
    func received(_ i: Int, _ message: [UInt8], at now: Int64) {
        if isStormWelcome(i, message) { return welcomed(i, at: now) }
        guard let skimmed = FrameSkim.messages(message) else {
            report.ops.errors["unreadable_frame", default: 0] += 1
            return
        }
        for m in skimmed {
            if m.type == "delta" { delivered(m.ops[...], to: i, at: now) }
            // Live deltas need nothing more: the replica follows committed state, which is what the
            // server's canvas equals once every gesture has ended. Presence (who holds which lease) is
            // not compared, and with full session lists it is the heaviest message to parse.
            if m.type == "delta", m.live { continue }
            if m.type == "presence" || m.type == "pong" { continue }
            // A storm watcher keeps no replica: its welcome (the whole canvas) and committed deltas are
            // counted from the skim, not parsed, so that 200 welcomes of 1.6 MB cost the tool their reading only.
            if clients[i].storm, m.type == "welcome" || m.type == "delta" {
                if m.type == "welcome" { welcomed(i, at: now) }
                continue
            }
            guard let json = parsed(message[m.range], type: m.type, canvas: clients[i].canvas) else { continue }
            handle(json, type: m.type, from: i, at: now)
        }
    }

    /// A delta listing `ops` reached client `i`: one op → peer sample per op another client sent.
    func delivered(_ ops: ArraySlice<OpTag>, to i: Int, at now: Int64) {
        let inWindow = now >= measureStart && now < measureEnd
        if inWindow { report.deltas += 1 }
        secondDeltas += 1
        let base = clients[i].canvas * plan.clients, me = clients[i].index, storm = clients[i].storm
        let perCanvas = plan.clients, start = measureStart, end = measureEnd
        for tag in ops where tag.client != me && tag.client < perCanvas {
            if inWindow { report.windowDeliveries += 1 }
            // A storm watcher's deliveries cost the server like any other, but the latency figures are the
            // clients' that were there before the storm.
            if storm { continue }
            let row = clients[base + tag.client].logRow
            guard row >= 0, let sent = sends.sentTime(row: row, counter: tag.counter), sent >= start, sent < end else { continue }
            let latency = UInt64(max(0, now - sent))
            peer.record(latency)
            secondPeer.record(min(latency, 60_000_000))
        }
    }

    func handle(_ m: JSONValue, type: String, from i: Int, at now: Int64) {
        if phase == .running, type == "delta", !clients[i].isDragger {
            clients[i].unapplied.append(m)
            if clients[i].unapplied.count > Self.maxUnapplied, let oldest = clients[i].unapplied.popFirst() {
                clients[i].replica.apply(oldest)
            }
        } else {
            applyUnapplied(i)
            clients[i].replica.apply(m)
        }
        switch type {
        case "ack":
            guard case .string(let id)? = m["id"], let tag = OpTag(id), clients[i].awaiting.remove(tag.counter) != nil else { return }
            if phase == .seeding {
                seedsAwaited -= 1
                if seedsAwaited == 0 { startRunning() }
                return
            }
            if clients[i].logRow >= 0, let sent = sends.sentTime(row: clients[i].logRow, counter: tag.counter), sent >= measureStart {
                report.ops.acked += 1
                // The drain's ends (every gesture ending at once when the window closes) are not the workload.
                guard sent < measureEnd else { return }
                ack.record(UInt64(max(0, now - sent)))
            }
        case "reject":
            guard case .string(let id)? = m["id"], let tag = OpTag(id) else { return }
            if case .string(let code)? = m["code"] { report.ops.rejected[code, default: 0] += 1 }
            if clients[i].awaiting.remove(tag.counter) != nil, phase == .seeding {
                seedsAwaited -= 1
                if seedsAwaited == 0 { startRunning() }
            }
            // The gesture this op belonged to is over; the next slot starts another.
            if clients[i].gesture != nil, tag.counter >= clients[i].counter - clients[i].step { clients[i].gesture = nil }
        case "error":
            if case .string(let code)? = m["code"] { report.ops.errors[code, default: 0] += 1 }
        case "welcome":
            welcomed(i, at: now)
        default:
            break
        }
    }

    /// How many committed deltas a watcher's replica may lag behind what it has read. Every watcher of a
    /// room reads each committed delta within the same few milliseconds; applying it to every replica
    /// then would delay the reading of the next tick's frames, and so the latencies measured. Nothing
    /// reads a watcher's replica before the window closes, so its deltas wait until then, in order. Past
    /// this many, the oldest is applied as each new one comes: a long run pays as it goes, and
    /// never for every watcher's backlog at once.
    static let maxUnapplied = 512

    /// Applies client `i`'s waiting committed deltas to its replica, in the order they came.
    func applyUnapplied(_ i: Int) {
        while let m = clients[i].unapplied.popFirst() { clients[i].replica.apply(m) }
    }

    func welcomed(_ i: Int, at now: Int64) {
        clients[i].welcomes += 1
        if clients[i].welcomes == 1 {
            if clients[i].storm { stormSettled(i, welcomed: true, at: now) } else { settle() }
        } else {
            report.resyncs += 1
        }
    }

    /// `bytes` parsed, or the value parsed for one of the canvas's recent committed deltas when it is the
    /// same bytes: every client of a canvas gets each committed delta, and parsing it once instead of once
    /// per client is most of what reading committed deltas costs. Clients read a delta at different times
    /// (the tool reads sockets in the order epoll lists them, and a busy tool finds several ticks waiting
    /// on one), so the last `parsedKept` are kept. Other messages (welcomes, acks) are each one client's.
    func parsed(_ bytes: ArraySlice<UInt8>, type: String, canvas: Int) -> JSONValue? {
        guard type == "delta" else { return try? JSONValue.parse(bytes) }
        if let hit = lastParsed[canvas].last(where: { $0.bytes.count == bytes.count && $0.bytes.elementsEqual(bytes) }) {
            return hit.value
        }
        guard let value = try? JSONValue.parse(bytes) else { return nil }
        lastParsed[canvas].append((bytes, value))
        if lastParsed[canvas].count > Self.parsedKept { lastParsed[canvas].removeFirst() }
        return value
    }
}
