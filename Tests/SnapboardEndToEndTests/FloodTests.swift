import Foundation
import SnapboardLock
import SnapboardProtocol
import SnapboardTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A raw WebSocket client on a small receive buffer: it writes masked client frames itself, and reads
/// only when a test asks it to (a flooder never does).
final class RawClient {
    let fd: Int32
    /// Everything read so far: the upgrade's response, then the server's frames.
    private(set) var received: [UInt8] = []
    /// True once a read or a write found the connection gone (a reset, or the server's end of the stream).
    private(set) var gone = false

    init(port: Int, path: String) throws {
        fd = try connectLoopback(port: port, receiveBuffer: 4096)
        sendUpgrade(fd, path: path)
    }

    deinit { close(fd) }

    /// A client frame: FIN as `fin` says, `opcode`, masked, with a length of any size.
    static func frame(_ payload: [UInt8], opcode: UInt8 = 1, fin: Bool = true) -> [UInt8] {
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        let length: [UInt8]
        switch payload.count {
        case ..<126: length = [0x80 | UInt8(payload.count)]
        case ..<65536: length = [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: length = [0x80 | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        return [(fin ? 0x80 : 0) | opcode] + length + mask + payload.enumerated().map { $1 ^ mask[$0 % 4] }
    }

    /// Writes all of `bytes`, waiting up to `timeout` seconds for room in the socket; false when the
    /// connection is gone or the room never came.
    @discardableResult
    func write(_ bytes: [UInt8], timeout: Double = 5) -> Bool {
        var sent = 0
        let deadline = Date().addingTimeInterval(timeout)
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n > 0 { sent += n; continue }
            guard n < 0, errno == EAGAIN || errno == EWOULDBLOCK, Date() < deadline else {
                gone = gone || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
                return false
            }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&p, 1, 50)
            if p.revents & Int16(POLLERR | POLLHUP) != 0 { gone = true; return false }
        }
        return true
    }

    /// Reads what is there (waiting up to `timeout` seconds for the first bytes), answering the server's
    /// pings with pongs as a live client does; false once the connection is gone.
    @discardableResult
    func read(timeout: Double = 0) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(timeout * 1000)) > 0 else { return !gone }
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 { received += buffer[0..<n]; continue }
            if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { gone = true }
            break
        }
        let pings = serverFrames(in: received).filter { $0.opcode == 9 }
        for ping in pings.dropFirst(answeredPings) { write(Self.frame(Array(ping.payload), opcode: 10)) }
        answeredPings = pings.count
        return !gone
    }

    private var answeredPings = 0

    /// The code of the server's close frame, if one came.
    var closeCode: UInt16? {
        guard let close = serverFrames(in: received).first(where: { $0.opcode == 8 }).map({ Array($0.payload) }), close.count >= 2 else { return nil }
        return UInt16(close[0]) << 8 | UInt16(close[1])
    }
}

extension EndToEnd {
    /// [P17] Everything queued for a connection counts toward its send budget, and every buffer a stranger
    /// can fill is bounded: answers to a client that never reads, and messages a client never finishes.
    @Suite("[P17] Floods: answers count toward backpressure; unfinished messages are bounded", .serialized)
    struct FloodTests {
        /// What a flooder sends without ever reading.
        enum Flood: String, CaseIterable, CustomTestStringConvertible {
            /// 2 KB pings as fast as the socket takes them, each answered with a pong that echoes its `t`.
            case pings
            /// 2 KB ops from a viewer as fast as the socket takes them, each answered `forbidden`.
            case forbiddenOps
            /// 60 KB pings within the ping budget (9 a second): only the send budget stops these.
            case bigPings

            var testDescription: String { rawValue }

            /// Seconds between two messages.
            var interval: Double { self == .bigPings ? 0.11 : 0 }

            var path: String { self == .pings ? "/v1/canvases/flood" : "/v1/canvases/watched?role=viewer" }

            func message(_ n: Int) -> [UInt8] {
                let pad = String(repeating: "x", count: self == .bigPings ? 60_000 : 2000)
                switch self {
                case .pings, .bigPings: return Array(#"{"type":"ping","t":"\#(n)-\#(pad)"}"#.utf8)
                case .forbiddenOps:
                    return Array(#"{"type":"op","id":"\#(String(repeating: "o", count: 50))\#(n % 10_000)","op":"snap","x":1,"y":1,"pad":"\#(pad)"}"#.utf8)
                }
            }
        }

        @Test("A client that never reads and floods messages that are each answered is closed within 30 s; RSS grows by less than 64 MB; a writer elsewhere keeps its acks",
              arguments: Flood.allCases)
        func answeredFlood(_ flood: Flood) throws {
            // A fixed socket buffer, so that what the kernel takes before the queue grows does not depend on the machine.
            let server = try ServerProcess(["--send-buffer-bytes", "65536"])
            // The viewer's canvas exists: an editor made it.
            let owner = try TestClient(server.url("watched"))
            owner.op("made", "snap", #""x":10,"y":10"#)
            _ = owner.expect(type: "ack")
            let writer = try TestClient(server.url("work"))
            _ = writer.expect(type: "welcome")
            let before = server.sampler.rssMB() ?? 0

            let done = Locked(false)
            let result = Locked<(closedAfter: Double?, peak: Double, sent: Int)>((nil, before, 0))
            let finished = DispatchGroup()
            finished.enter()
            Thread.detachNewThread {
                // The flooder lives on this thread alone.
                guard let flooder = try? RawClient(port: server.port, path: flood.path) else {
                    done.withLock { $0 = true }
                    finished.leave()
                    return
                }
                // Built once (a debug build masks slowly): the same messages again and again, as many as a
                // single write takes at a time, unless the flood is paced.
                let batch = flood.interval > 0 ? 1 : 16
                let frames = (0..<batch).flatMap { RawClient.frame(flood.message($0)) }
                let start = Date()
                var sent = 0, peak = before, lastSample = Date.distantPast
                while Date().timeIntervalSince(start) < 30 {
                    if Date().timeIntervalSince(lastSample) > 0.05 {
                        peak = max(peak, server.sampler.rssMB() ?? 0)
                        lastSample = Date()
                    }
                    guard flooder.write(frames, timeout: 1) else {
                        if flooder.gone { break } else { continue }
                    }
                    sent += batch
                    if flood.interval > 0 { usleep(UInt32(flood.interval * 1_000_000)) }
                }
                peak = max(peak, server.sampler.rssMB() ?? 0)
                result.withLock { $0 = (flooder.gone ? Date().timeIntervalSince(start) : nil, peak, sent) }
                done.withLock { $0 = true }
                finished.leave()
            }
            // Meanwhile a writer on another canvas snaps, and every op is acked.
            var acked = 0, sent = 0
            while !done.withLock({ $0 }) {
                writer.op("w\(sent)", "snap", #""x":\#(sent % 900),"y":\#(sent % 600)"#)
                if writer.expect(type: "ack", timeout: 30, where: { $0["id"] == .string("w\(sent)") }) != nil { acked += 1 }
                sent += 1
                usleep(20_000)
            }
            finished.wait()
            let (closedAfter, peak, messages) = result.withLock { $0 }
            // The memory held for the flooder goes back to the system once it is closed.
            usleep(1_500_000)
            let after = server.sampler.rssMB() ?? 0
            print("FloodTests \(flood): \(messages) messages; closed after \(closedAfter.map { String(format: "%.1f s", $0) } ?? "never (30 s)"); RSS \(before) MB before, \(peak) MB at the peak, \(after) MB after")
            #expect(closedAfter != nil, "the flooder was not closed within 30 s")
            #expect(acked == sent && sent > 0, "the writer got \(acked) acks for \(sent) ops")
            #expect(server.isRunning)
            // Under a sanitizer, RSS measures its quarantine and shadow memory instead.
            if !underSanitizer {
                #expect(peak - before < 64, "RSS went from \(before) to \(peak) MB")
                #expect(after - before < 64, "RSS stayed at \(after) MB (from \(before) MB)")
            }
        }

        @Test("[P2] A message left unfinished for longer than the idle timeout closes its connection with 1008; a live one stays")
        func unfinishedTimesOut() throws {
            let server = try ServerProcess(["--ping-seconds", "1", "--idle-timeout", "3"])
            // Both read and answer the server's pings; one sends whole pings, the other a message it never ends.
            let live = try RawClient(port: server.port, path: "/v1/canvases/slow")
            let dribbler = try RawClient(port: server.port, path: "/v1/canvases/slow")
            dribbler.write(RawClient.frame(Array(#"{"type":"ping","t":""#.utf8), fin: false))
            let start = Date()
            while Date().timeIntervalSince(start) < 20, dribbler.closeCode == nil, !dribbler.gone {
                live.write(RawClient.frame(Array(#"{"type":"ping","t":1}"#.utf8)))
                dribbler.write(RawClient.frame(Array("x".utf8), opcode: 0, fin: false))
                live.read()
                dribbler.read(timeout: 0.3)
            }
            let after = Date().timeIntervalSince(start)
            print("FloodTests unfinished: closed with \(dribbler.closeCode.map(String.init) ?? "none") after \(String(format: "%.1f", after)) s")
            #expect(dribbler.closeCode == CloseCode.policyViolation, "the unfinished message's connection was not closed with 1008 (gone: \(dribbler.gone))")
            #expect(after >= 3, "closed after \(after) s, before the idle timeout")
            live.read(timeout: 0.5)
            #expect(!live.gone && live.closeCode == nil, "the live connection was closed")
            #expect(serverFrames(in: live.received).contains { String(decoding: $0.payload, as: UTF8.self).contains("pong") })
        }

        @Test("[P2] Unfinished messages hold at most --max-unfinished-bytes together: one more gets too_large and close 1009, the others complete")
        func unfinishedBudget() throws {
            let server = try ServerProcess(["--max-unfinished-bytes", "65536", "--max-message-bytes", "65536"])
            let first = try RawClient(port: server.port, path: "/v1/canvases/parts")
            let second = try RawClient(port: server.port, path: "/v1/canvases/parts")
            let third = try RawClient(port: server.port, path: "/v1/canvases/parts")
            let pad = String(repeating: "x", count: 40_000)
            // The first holds 40,000 bytes of an unfinished message; the second's would take the server past 64 KiB.
            first.write(RawClient.frame(Array(#"{"type":"ping","t":"\#(pad)"#.utf8), fin: false))
            first.read(timeout: 1)
            second.write(RawClient.frame(Array(#"{"type":"ping","t":"\#(pad)"#.utf8), fin: false))
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, second.closeCode == nil, !second.gone { second.read(timeout: 0.2) }
            #expect(second.closeCode == CloseCode.messageTooBig, "closed with \(second.closeCode.map(String.init) ?? "none")")
            let error = serverFrames(in: second.received).first { String(decoding: $0.payload, as: UTF8.self).contains(#""type":"error""#) }
            #expect(error.map { String(decoding: $0.payload, as: UTF8.self).contains("too_large") } == true)
            // The first ends its message and is answered; a third's whole message needs no budget.
            first.write(RawClient.frame(Array(#""}"#.utf8), opcode: 0))
            third.write(RawClient.frame(Array(#"{"type":"ping","t":"third"}"#.utf8)))
            for client in [first, third] {
                let until = Date().addingTimeInterval(10)
                func ponged() -> Bool { serverFrames(in: client.received).contains { String(decoding: $0.payload, as: UTF8.self).contains("pong") } }
                while Date() < until, !ponged(), !client.gone { client.read(timeout: 0.2) }
                #expect(ponged() && client.closeCode == nil)
            }
            let refusals = try httpGet(port: server.port, "/metrics").body.split(separator: "\n").first { $0.contains(#"reason="unfinished""#) }
            #expect(refusals?.hasSuffix(" 1") == true, "\(refusals ?? "no refusals counted")")
        }

        @Test("[P10] A client flooding a canvas that is still loading is closed with 1008; RSS grows by less than 64 MB")
        func floodWhileLoading() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-flood-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let hold = directory.appendingPathComponent("fault").path
            let server = try ServerProcess(["--fault-file", hold, "--send-buffer-bytes", "65536"], data: directory.appendingPathComponent("data.sqlite").path)
            // The disk stalls under a commit: the storage thread waits, and so does every canvas's load behind it.
            let ann = try TestClient(server.url("stalled"))
            _ = ann.expect(type: "welcome")
            try Data("hold".utf8).write(to: URL(fileURLWithPath: hold))
            defer { try? FileManager.default.removeItem(atPath: hold) }
            ann.op("a1", "snap", #""x":100,"y":100"#)
            _ = ann.expect(type: "delta")
            let before = server.sampler.rssMB() ?? 0
            let flooder = try RawClient(port: server.port, path: "/v1/canvases/loading")
            let frames = (0..<16).flatMap { _ in RawClient.frame(Flood.pings.message(0)) }
            var peak = before, sent = 0
            let start = Date()
            while Date().timeIntervalSince(start) < 30, !flooder.gone {
                if flooder.write(frames, timeout: 1) { sent += 16 }
                if sent % 1_024 == 0 { peak = max(peak, server.sampler.rssMB() ?? 0) }
            }
            let closedAfter = Date().timeIntervalSince(start)
            peak = max(peak, server.sampler.rssMB() ?? 0)
            print("FloodTests while loading: \(sent) messages; \(flooder.gone ? "closed after \(String(format: "%.1f", closedAfter)) s" : "never closed (30 s)"); RSS \(before) MB before, \(peak) MB at the peak")
            #expect(flooder.gone, "the flooder was not closed within 30 s")
            if !underSanitizer { #expect(peak - before < 64, "RSS went from \(before) to \(peak) MB") }
            #expect(server.isRunning)
        }
    }
}
