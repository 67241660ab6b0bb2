import Foundation
import GRDBSQLite

/// Log rows copied out of SQLite as they are, so that one thread steps the statement while another decodes
/// what it read (`SQLiteCanvasStore.pipelinedLog`). Each value is its SQLite type, then its payload: 8 bytes
/// for an integer or a real, a u32 length and the bytes for a text or a blob, nothing for NULL.
///
/// Raw memory rather than arrays: the reading thread is the slower of the two, and an array's append checks
/// uniqueness and capacity for each of a million rows' seven values. One thread fills a chunk, then hands it
/// to one other, which only reads it.
final class LogChunk: @unchecked Sendable {
    /// Values read per row: `SQLiteCanvasStore.logColumns`.
    static let columns: Int32 = 7

    let capacity: Int
    private(set) var rowCount = 0
    /// Where each row starts in `bytes`.
    private let starts: UnsafeMutablePointer<Int>
    private var bytes: UnsafeMutableRawPointer
    private var used = 0
    private var allocated: Int

    init(rows: Int, bytesPerRow: Int) {
        capacity = rows
        starts = .allocate(capacity: rows)
        allocated = rows * bytesPerRow
        bytes = .allocate(byteCount: allocated, alignment: 8)
    }

    deinit {
        starts.deallocate()
        bytes.deallocate()
    }

    var isFull: Bool { rowCount == capacity }

    /// The bytes the rows take.
    var byteCount: Int { used }

    /// Room for `n` more bytes.
    private func reserve(_ n: Int) {
        guard used + n > allocated else { return }
        allocated = max(2 * allocated, used + n)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: allocated, alignment: 8)
        grown.copyMemory(from: bytes, byteCount: used)
        bytes.deallocate()
        bytes = grown
    }

    private func write<T>(_ value: T) {
        reserve(MemoryLayout<T>.size)
        bytes.storeBytes(of: value, toByteOffset: used, as: T.self)
        used += MemoryLayout<T>.size
    }

    /// Copies the row `row` stands on; the chunk must not be full.
    func append(_ row: LogRow) {
        precondition(rowCount < capacity, "a full log chunk")
        starts[rowCount] = used
        rowCount += 1
        for column in 0..<Self.columns {
            let type = sqlite3_column_type(row.statement, column)
            write(UInt8(truncatingIfNeeded: type))
            switch type {
            case SQLITE_INTEGER:
                write(sqlite3_column_int64(row.statement, column).littleEndian)
            case SQLITE_FLOAT:
                write(sqlite3_column_double(row.statement, column).bitPattern.littleEndian)
            case SQLITE_TEXT, SQLITE_BLOB:
                _ = row.bytes(column) { value in
                    write(UInt32(value.count).littleEndian)
                    reserve(value.count)
                    if let base = value.baseAddress { (bytes + used).copyMemory(from: base, byteCount: value.count) }
                    used += value.count
                }
            default:
                break
            }
        }
    }

    /// Calls `body` with each row, in order; a row is valid only during its call.
    func eachRow(_ body: (BufferedRow) throws -> Void) rethrows {
        let all = UnsafeRawBufferPointer(start: bytes, count: used)
        for row in 0..<rowCount {
            let end = row + 1 < rowCount ? starts[row + 1] : used
            try body(BufferedRow(UnsafeRawBufferPointer(rebasing: all[starts[row]..<end])))
        }
    }
}

/// A row of a `LogChunk`, read as `LogRow` reads the statement: the same conversions, the same values.
struct BufferedRow: LogColumns {
    let bytes: UnsafeRawBufferPointer
    /// Where each column's value starts in `bytes`, found by walking the row once.
    private var starts: (Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0)

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        var at = 0
        withUnsafeMutableBytes(of: &starts) { starts in
            for column in 0..<Int(LogChunk.columns) {
                starts.storeBytes(of: at, toByteOffset: column * MemoryLayout<Int>.stride, as: Int.self)
                switch Int32(bytes[at]) {
                case SQLITE_INTEGER, SQLITE_FLOAT: at += 9
                case SQLITE_TEXT, SQLITE_BLOB: at += 5 + Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 1, as: UInt32.self)))
                default: at += 1
                }
            }
        }
    }

    private func start(_ column: Int32) -> Int {
        withUnsafeBytes(of: starts) { $0.load(fromByteOffset: Int(column) * MemoryLayout<Int>.stride, as: Int.self) }
    }
    func type(_ column: Int32) -> Int32 { Int32(bytes[start(column)]) }
    private func payload(_ column: Int32) -> Int { start(column) + 1 }

    func int(_ column: Int32) -> Int? {
        switch type(column) {
        case SQLITE_INTEGER: Int(exactly: Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: payload(column), as: Int64.self)))
        case SQLITE_FLOAT: Self.int(fromReal: Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: payload(column), as: UInt64.self))))
        default: nil
        }
    }

    func bytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        switch type(column) {
        case SQLITE_BLOB, SQLITE_TEXT:
            let at = payload(column)
            let count = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
            return try body(UnsafeRawBufferPointer(rebasing: bytes[(at + 4)..<(at + 4 + count)]))
        default:
            return nil
        }
    }
}

/// A bounded queue from one thread to another: `put` waits while `capacity` items wait, `take` while none
/// do. Either side can stop the other: the producer with `finish`, the consumer with `cancel`.
final class Handoff<Item: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Item] = []
    private var finished = false
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Queues `item`, waiting for room; false (the item dropped) once the consumer has cancelled.
    func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// No more items will come.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Either side stops: waiting and later `put`s return false, and `take` nil.
    func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// The next item, waiting for one; nil once the producer has finished and every item is taken, or after
    /// `cancel`.
    func take() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !finished && !cancelled { condition.wait() }
        guard !items.isEmpty, !cancelled else { return nil }
        condition.broadcast()
        return items.removeFirst()
    }
}
