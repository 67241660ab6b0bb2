import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Who is using a data file: a server holds an exclusive lock on it for as long as it runs, and so does an
/// import, so neither starts while the other (or a second server) has the file. Readers (`export`) take
/// none: SQLite's WAL lets them read beside the server.
///
/// The lock is `flock(2)` on the database file itself, so it is on the file, not on a name: a second
/// server that reaches the same database through a hard link or a symlink finds it taken. (A lock on a
/// sidecar name, `<file>.lock`, let it through, and two writers then lost each other's acked ops.) The
/// kernel releases it when the process ends, however it ends (`kill -9` included), so it never needs
/// cleaning up. It does not meet SQLite's own locks, which are `fcntl` record locks: on Linux the two kinds
/// are independent.
public final class DataFileLock {
    private let fd: Int32

    /// Why the lock cannot be had.
    public struct Busy: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Takes the lock for the database at `path` (creating the file, empty, when there is none yet: SQLite
    /// takes an empty file as a new database), or throws `Busy` when another process holds it.
    public init(databasePath path: String) throws {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Busy(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw Busy(description: "\(path) is in use by another snapboard-server or import (it holds a lock on the file); stop it first")
        }
    }

    // Closing the descriptor would also drop the `fcntl` locks SQLite holds on the same file in this
    // process (POSIX ties them to the process and the file, not the descriptor): the descriptor stays open
    // until the process ends, when the kernel drops both.
}
