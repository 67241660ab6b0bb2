import SnapboardProtocol

/// A received message, or the reason it is not one, before the room handles it.
enum Inbound {
    case text([UInt8])
    case invalid(ProtocolError)
}
