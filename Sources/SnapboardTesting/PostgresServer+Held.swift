import Foundation

extension PostgresServer {
    /// A superuser transaction kept open in a psql of its own: it holds the locks its statements took until
    /// `release`. For tests that must stall a node's writes to some rows (its lease, a canvas) deterministically.
    public final class HeldTransaction: @unchecked Sendable {
        private let process = Process()
        private let input = Pipe()
        private let output = Pipe()

        /// Opens the transaction and runs `sql`, which must end by selecting the word `held`; returns once it has.
        init(server: PostgresServer, _ sql: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
            process.arguments = [server.superuserURL + " connect_timeout=5", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
            input.fileHandleForWriting.write(Data("BEGIN;\n\(sql);\n".utf8))
            var seen = ""
            let deadline = Date().addingTimeInterval(10)
            while !seen.contains("held"), Date() < deadline, process.isRunning {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            guard seen.contains("held") else {
                process.terminate()
                throw Failure(description: "psql did not take the lock: \(seen)")
            }
        }

        /// Commits and ends the psql: the locks go.
        public func release() {
            guard process.isRunning else { return }
            input.fileHandleForWriting.write(Data("COMMIT;\n".utf8))
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }

        deinit { release() }
    }

    /// Runs `sql` (ending by selecting the word `held`) in a transaction left open until `release`.
    public func hold(_ sql: String) throws -> HeldTransaction { try HeldTransaction(server: self, sql) }
}
