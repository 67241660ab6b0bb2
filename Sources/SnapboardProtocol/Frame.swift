/// One message ready to write: its payload behind `Frame.headroom` bytes that a transport may write a
/// WebSocket frame header into, in memory the frame owns.
///
/// A reference type, so a message serialised once is queued to every recipient without a copy. The
/// transport writes in place through `withUnsafeMutablePayload`; libwebsockets writes only the headroom
/// on the server side, and masks the payload in place on the client side, whose frames are never shared.
/// Not `Sendable`: frames live on the thread that serialises and writes them (the service thread).
public final class Frame {
    /// Bytes reserved before every payload: at least libwebsockets' `LWS_PRE` (the transport checks).
    public static let headroom = 16

    /// Payload bytes, headroom excluded.
    public let count: Int
    private let base: UnsafeMutablePointer<UInt8>

    /// A frame holding `payload`.
    public init(payload: some Collection<UInt8>) {
        count = payload.count
        base = .allocate(capacity: Frame.headroom + count)
        base.initialize(repeating: 0, count: Frame.headroom)
        _ = UnsafeMutableBufferPointer(start: base + Frame.headroom, count: count).initialize(from: payload)
    }

    /// A frame of `payload` with `insert` put in before its byte at `index`, in one copy of each.
    public init(payload: [UInt8], inserting insert: [UInt8], at index: Int) {
        precondition(index >= 0 && index <= payload.count, "the insertion point is within the payload")
        count = payload.count + insert.count
        base = .allocate(capacity: Frame.headroom + count)
        base.initialize(repeating: 0, count: Frame.headroom)
        let at = base + Frame.headroom
        payload.withUnsafeBufferPointer { p in
            guard let src = p.baseAddress else { return }
            at.initialize(from: src, count: index)
            (at + index + insert.count).initialize(from: src + index, count: p.count - index)
        }
        insert.withUnsafeBufferPointer { p in
            if let src = p.baseAddress { (at + index).initialize(from: src, count: p.count) }
        }
    }

    /// Several frames as one: a JSON array of their payloads, in order.
    public init(batch frames: [Frame]) {
        count = frames.reduce(1) { $0 + $1.count + 1 }
        base = .allocate(capacity: Frame.headroom + count)
        base.initialize(repeating: 0, count: Frame.headroom)
        var at = base + Frame.headroom
        at.initialize(to: UInt8(ascii: "["))
        at += 1
        for (i, frame) in frames.enumerated() {
            if i > 0 {
                at.initialize(to: UInt8(ascii: ","))
                at += 1
            }
            at.initialize(from: frame.base + Frame.headroom, count: frame.count)
            at += frame.count
        }
        at.initialize(to: UInt8(ascii: "]"))
    }

    deinit { base.deallocate() }

    /// The payload, read-only.
    public var payload: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base + Frame.headroom, count: count) }

    /// A copy of the payload.
    public var bytes: [UInt8] { Array(payload) }

    /// The whole buffer, headroom first.
    public var withHeadroom: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: Frame.headroom + count) }

    /// Calls `body` with the payload's first byte, the `Frame.headroom` bytes before it writable, and the
    /// payload's length: for the transport's in-place write, on the thread that owns the frame.
    public func withUnsafeMutablePayload<R>(_ body: (UnsafeMutablePointer<UInt8>, Int) throws -> R) rethrows -> R {
        try body(base + Frame.headroom, count)
    }
}

@available(*, unavailable, message: "frames belong to the thread that writes them")
extension Frame: Sendable {}
