import Foundation
import SnapboardTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// HTTP on raw sockets, for answers whose headers matter and bodies sent a little at a time.
enum RawHTTP {
    struct Answer {
        var status: Int
        var head: String
        var body: String

        /// A header's value, by case-insensitive name.
        func header(_ name: String) -> String? {
            head.split(separator: "\r\n").dropFirst().first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Sends `text` on `fd`; false when the peer is gone.
    @discardableResult
    static func send(_ fd: Int32, _ text: String) -> Bool {
        text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } >= 0
    }

    /// Reads on `fd` until a whole answer (headers and `Content-Length` bytes) came, the peer closed or
    /// `timeout` passed; nil when no status line came.
    static func answer(_ fd: Int32, timeout: Double) -> Answer? {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            if let parsed = parse(bytes), parsed.body.utf8.count >= (Int(parsed.header("Content-Length") ?? "0") ?? 0) { return parsed }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) >= 0 else { break }
            guard pfd.revents != 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return parse(bytes)
    }

    static func parse(_ bytes: [UInt8]) -> Answer? {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        guard let status = head.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap({ Int($0) }) else { return nil }
        return Answer(status: status, head: head, body: String(decoding: bytes[end.upperBound...], as: UTF8.self))
    }

    /// One whole request on a fresh connection, and its answer.
    static func exchange(port: Int, _ request: String, timeout: Double = 30) throws -> Answer {
        let fd = try connectLoopback(port: port)
        defer { close(fd) }
        send(fd, request)
        guard let answer = answer(fd, timeout: timeout) else { throw ServerStartError(output: "no answer") }
        return answer
    }

    /// True once the peer closed `fd` (or reset it) within `timeout`.
    static func closed(_ fd: Int32, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) >= 0 else { return true }
            guard pfd.revents != 0 else { continue }
            if recv(fd, &buffer, buffer.count, 0) <= 0 { return true }
        }
        return false
    }
}

extension EndToEnd {
    /// Request bodies are bounded in number, memory and time: a stranger dribbling uploads holds little.
    @Suite("Upload limits, end to end", .serialized)
    struct UploadLimitTests {
        /// Opens a POST of a `length`-byte body on a new connection and sends `sent` bytes of it.
        static func startUpload(_ server: ServerProcess, canvas: String, length: Int, sent: Int = 1) throws -> Int32 {
            let fd = try connectLoopback(port: server.port)
            RawHTTP.send(fd, "POST /v1/canvases/\(canvas) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(length)\r\n\r\n" + String(repeating: " ", count: sent))
            return fd
        }

        /// What a refused upload is answered, within 10 s.
        static func refusal(_ server: ServerProcess, canvas: String, length: Int) throws -> RawHTTP.Answer? {
            let fd = try startUpload(server, canvas: canvas, length: length)
            defer { close(fd) }
            return RawHTTP.answer(fd, timeout: 10)
        }

        @Test("Bodies at once, per address (429 too_many_uploads) and in all (503 busy), with Retry-After; a finished body gives its place back")
        func concurrentBodies() throws {
            let server = try ServerProcess(["--max-uploads-per-ip", "2"])
            let first = try Self.startUpload(server, canvas: "a", length: 100), second = try Self.startUpload(server, canvas: "b", length: 100)
            Thread.sleep(forTimeInterval: 0.3)
            let third = try Self.refusal(server, canvas: "c", length: 100)
            #expect(third?.status == 429 && third?.body.contains(#""error":"too_many_uploads""#) == true, "\(String(describing: third))")
            #expect(third?.header("Retry-After") == "1")
            // The first body finishes: it is answered, and its place is free again.
            RawHTTP.send(first, "{}" + String(repeating: " ", count: 97))
            #expect(RawHTTP.answer(first, timeout: 10)?.status == 201)
            close(first)
            Thread.sleep(forTimeInterval: 0.3)
            let fourth = try Self.startUpload(server, canvas: "d", length: 3)
            RawHTTP.send(fourth, "{}")
            #expect(RawHTTP.answer(fourth, timeout: 10)?.status == 201)
            close(fourth)
            close(second)
            #expect(server.terminate(timeout: 10) == 0)

            let busy = try ServerProcess(["--max-uploads", "2"])
            let held = [try Self.startUpload(busy, canvas: "a", length: 100), try Self.startUpload(busy, canvas: "b", length: 100)]
            Thread.sleep(forTimeInterval: 0.3)
            let refused = try Self.refusal(busy, canvas: "c", length: 100)
            #expect(refused?.status == 503 && refused?.body.contains(#""error":"busy""#) == true, "\(String(describing: refused))")
            #expect(refused?.header("Retry-After") == "1")
            held.forEach { close($0) }
            // A connection that ends mid-body gives its place back.
            Thread.sleep(forTimeInterval: 0.5)
            #expect(try http(port: busy.port, "POST", "/v1/canvases/e", body: "{}", headers: ["Content-Type: application/json"]).status == 201)
            #expect(busy.terminate(timeout: 10) == 0)
        }

        @Test("The bytes bodies declare together are bounded: past --max-upload-memory, 503 busy")
        func bodyMemory() throws {
            let server = try ServerProcess(["--max-upload-memory", "1048576", "--max-request-body", "1048576"])
            let big = try Self.startUpload(server, canvas: "a", length: 800_000)
            Thread.sleep(forTimeInterval: 0.3)
            let refused = try Self.refusal(server, canvas: "b", length: 300_000)
            #expect(refused?.status == 503 && refused?.body.contains(#""error":"busy""#) == true, "\(String(describing: refused))")
            // A small one still fits.
            let small = try Self.startUpload(server, canvas: "c", length: 2, sent: 0)
            RawHTTP.send(small, "{}")
            #expect(RawHTTP.answer(small, timeout: 10)?.status == 201)
            close(small)
            close(big)
            #expect(server.terminate(timeout: 10) == 0)
        }

        @Test("A body slower than --min-upload-rate (after 10 s) is answered 408 too_slow and closed, dribbled or silent; the server serves on")
        func slowBodies() throws {
            let server = try ServerProcess(["--min-upload-rate", "1000"])
            let writer = try TestClient(server.url("busy"))
            _ = writer.expect(type: "welcome")
            // 2,000 bytes at 1,000 a second: 12 s in all. One sends a byte every 200 ms, one nothing.
            let dribbler = try Self.startUpload(server, canvas: "a", length: 2000), silent = try Self.startUpload(server, canvas: "b", length: 2000)
            let started = Date()
            var answer: RawHTTP.Answer?
            while answer == nil, Date().timeIntervalSince(started) < 30 {
                RawHTTP.send(dribbler, " ")
                answer = RawHTTP.answer(dribbler, timeout: 0.2)
            }
            #expect(answer?.status == 408 && answer?.body.contains(#""error":"too_slow""#) == true, "\(String(describing: answer))")
            #expect(Date().timeIntervalSince(started) >= 9, "answered before the 10 s every body has")
            #expect(RawHTTP.closed(dribbler, timeout: 10))
            let quiet = RawHTTP.answer(silent, timeout: 10)
            #expect(quiet?.status == 408, "\(String(describing: quiet))")
            #expect(RawHTTP.closed(silent, timeout: 10))
            close(dribbler)
            close(silent)
            writer.op("w", "snap", #""x":100,"y":100"#)
            #expect(writer.expect(type: "ack") != nil)
            #expect(server.terminate(timeout: 10) == 0)
        }

        @Test("Twenty uploads of 16 MiB sent fast and never finished: the server's memory grows by the budget, not by what they send")
        func dribblingMemory() throws {
            let server = try ServerProcess()
            let baseline = server.sampler.rssMB() ?? 0
            let chunk = String(repeating: " ", count: 1 << 20)
            var fds: [Int32] = []
            for i in 0..<20 {
                let fd = try Self.startUpload(server, canvas: "m\(i)", length: 16 << 20, sent: 0)
                var tv = timeval(tv_sec: 1, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                fds.append(fd)
            }
            // 15 MiB each, where they may: a refused one is answered and closed, so its sends fail.
            for _ in 0..<15 {
                for fd in fds { RawHTTP.send(fd, chunk) }
            }
            Thread.sleep(forTimeInterval: 1)
            let grown = (server.sampler.rssMB() ?? 0) - baseline
            // The default budget is 8 bodies per address and 128 MiB in all; without it, 300 MiB.
            #expect(grown < 180, "RSS grew by \(grown) MB")
            fds.forEach { close($0) }
            #expect(try httpGet(port: server.port, "/healthz").status == 200)
            #expect(server.terminate(timeout: 10) == 0)
        }
    }
}
