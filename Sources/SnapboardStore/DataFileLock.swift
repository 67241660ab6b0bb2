import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Who is using a data file: a server holds an exclusive lock on it for as long as it runs, and so does an
/// import, so neither starts while the other (or a second server) has the file. Readers (`export`) take
/// none: SQLite's WAL lets them read beside the server.
///
/// The lock is `flock(2)` on `<file>.lock` beside the database, released by the kernel when the process
/// ends, however it ends (`kill -9` included), so it never needs cleaning up.
public final class DataFileLock {
    private let fd: Int32

    /// Why the lock cannot be had.
    public struct Busy: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Takes the lock for the database at `path`, or throws `Busy` when another process holds it.
    public init(databasePath path: String) throws {
        let lockPath = path + ".lock"
        fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Busy(description: "cannot open \(lockPath): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw Busy(description: "\(path) is in use by another snapboard-server or import (it holds \(lockPath)); stop it first")
        }
    }

    deinit { close(fd) }
}
