import Foundation

/// True when `make test-asan` or `make test-tsan` runs the suite: the sanitizers replace the allocator and
/// slow everything several times, so memory figures and time bounds say nothing about the server then.
public let underSanitizer = ["ASAN_OPTIONS", "TSAN_OPTIONS"].contains { ProcessInfo.processInfo.environment[$0] != nil }

/// The built `snapboard-server` binary, beside the test bundle.
public var serverBinary: URL {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [here.appendingPathComponent("snapboard-server"),
                      here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("snapboard-server")]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
}

/// Runs `snapboard-server` with `arguments` (and `environment` added) to completion; returns its exit
/// status and standard output, with standard error after it when `withErrors`.
public func runServerCommand(_ arguments: [String], environment: [String: String] = [:], withErrors: Bool = false) throws -> (status: Int32, output: String) {
    try runCommand(serverBinary, arguments, environment: environment, withErrors: withErrors)
}

/// Runs `executable` with `arguments` (and `environment` added) to completion; returns its exit status and
/// standard output, with standard error after it when `withErrors` (else standard error is the test's).
public func runCommand(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], withErrors: Bool = false) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let output = Pipe()
    process.standardOutput = output
    if withErrors { process.standardError = output }
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
