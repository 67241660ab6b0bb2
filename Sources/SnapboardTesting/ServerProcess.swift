import Foundation
import SnapboardLoad

#if canImport(Glibc)
import Glibc
#endif

/// The real `snapboard-server` binary, started on port 0 with the given flags; killed when released.
public final class ServerProcess: @unchecked Sendable {
    public let process = Process()
    public let port: Int
    /// The SQLite file the server keeps canvases in: a fresh one unless a test passes its own.
    public let dataPath: String
    private let ownsData: Bool
    private let output = Pipe()

    /// `errorLog`: a file that takes the server's standard error (else the test's own). `launcher`: a
    /// command that execs the server with its arguments (`prlimit --nofile=128 --`), keeping its pid.
    public init(_ arguments: [String] = [], data: String? = nil, environment: [String: String] = [:], errorLog: String? = nil,
         launcher: [String] = []) throws {
        ownsData = data == nil
        dataPath = data ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("snapboard-test-\(getpid())-\(UUID().uuidString)/canvases.sqlite").path
        let serverArguments = ["--port", "0", "--log-level", "warning", "--data", dataPath] + arguments
        if let command = launcher.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(launcher.dropFirst()) + [serverBinary.path] + serverArguments
        } else {
            process.executableURL = serverBinary
            process.arguments = serverArguments
        }
        process.standardOutput = output
        if let errorLog {
            _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: errorLog)
        }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        try process.run()
        // The first line says where it listens.
        var line: [UInt8] = []
        let handle = output.fileHandleForReading
        while line.last != 0x0A {
            let byte = handle.readData(ofLength: 1)
            guard !byte.isEmpty else { throw Self.abandon(process, ServerStartError(output: String(decoding: line, as: UTF8.self))) }
            line.append(contentsOf: byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let port = Int(text.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            throw Self.abandon(process, ServerStartError(output: text))
        }
        self.port = port
    }

    /// Kills a server that did not start as expected (a throwing init runs no `deinit`, and a server left
    /// running would keep the test run's output open), and returns `error`.
    private static func abandon(_ process: Process, _ error: ServerStartError) -> ServerStartError {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return error
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if ownsData { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: dataPath).deletingLastPathComponent().path) }
    }

    public func url(_ canvas: String, _ query: String = "") -> String {
        "ws://127.0.0.1:\(port)/v1/canvases/\(canvas)" + (query.isEmpty ? "" : "?" + query)
    }

    /// Sends SIGTERM and waits for the process to exit; returns its status.
    public func terminate(timeout: Double = 10) -> Int32? {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    public var isRunning: Bool { process.isRunning }

    /// The process's CPU time and memory, from `/proc`.
    public var sampler: ProcessSampler { ProcessSampler(pid: process.processIdentifier) }
}

/// A server that did not start: what it printed instead of where it listens.
public struct ServerStartError: Error {
    public var output: String

    public init(output: String) { self.output = output }
}
