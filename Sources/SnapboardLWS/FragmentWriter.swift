import CLibWebSockets
import SnapboardProtocol

/// Writes one message held in parts (frames that other recipients share) as the fragments of one
/// WebSocket message, at most `chunk` bytes per writable callback. Nothing is copied: each fragment goes
/// out from its part's own bytes. Writing a chunk that starts inside a part puts the frame header over
/// the bytes just before it, which other recipients still need, so they are saved and put back once
/// `lws_write` returns (by then the kernel or libwebsockets' own buffer holds what was sent).
///
/// One fragment per callback keeps a slow reader's share small: libwebsockets copies what the kernel
/// does not take, so a whole 1.6 MB welcome written at once could sit copied once per slow joiner.
/// Service thread only.
public struct FragmentWriter {
    /// Bytes per fragment at most.
    public static let chunk = 64 << 10

    private let parts: [Frame]
    private var part = 0
    private var offset = 0
    private var started = false

    /// A writer for `parts` (empty parts are skipped). Whether any fragment was written yet is `started`.
    public init(_ parts: [Frame]) {
        let nonEmpty = parts.filter { $0.count > 0 }
        self.parts = nonEmpty.isEmpty ? [Frame(payload: [])] : nonEmpty
    }

    /// True once the last fragment went out.
    public var isDone: Bool { part == parts.count }

    /// Writes the next fragment to `socket`. False when the connection is broken.
    public mutating func writeNext(to socket: LWSSocket) -> Bool {
        let frame = parts[part]
        let end = min(offset + FragmentWriter.chunk, frame.count)
        let last = part == parts.count - 1 && end == frame.count
        var mode = started ? LWS_WRITE_CONTINUATION : LWS_WRITE_TEXT
        if !last { mode = lws_write_protocol(mode.rawValue | LWS_WRITE_NO_FIN.rawValue) }
        let count = end - offset
        let written: Int32 = frame.withUnsafeMutablePayload { payload, _ in
            let start = payload + offset
            // The headroom before `start`: the frame's own before its first byte, sent bytes after that.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Frame.headroom) { saved in
                let headroom = UnsafeMutableBufferPointer(start: start - Frame.headroom, count: Frame.headroom)
                _ = saved.initialize(fromContentsOf: headroom)
                defer { _ = headroom.update(fromContentsOf: saved) }
                return lws_write(socket.wsi, start, count, mode)
            }
        }
        started = true
        if end == frame.count {
            part += 1
            offset = 0
        } else {
            offset = end
        }
        return Int(written) >= count
    }
}
