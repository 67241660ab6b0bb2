import SnapboardLock

/// The HTTP request bodies being received across the shards: how many in all and from each address, and
/// the bytes they declared (`Content-Length`), which is the memory they may come to. A body is counted from
/// its headers until it is whole or its connection ends. Touched once at each end, never per chunk.
final class UploadBudget: Sendable {
    let maxUploads: Int
    let maxUploadsPerIP: Int
    let maxBytes: Int
    private let open = Locked<(count: Int, bytes: Int, byPeer: [String: Int])>((0, 0, [:]))

    init(maxUploads: Int, maxUploadsPerIP: Int, maxBytes: Int) {
        self.maxUploads = maxUploads
        self.maxUploadsPerIP = maxUploadsPerIP
        self.maxBytes = maxBytes
    }

    /// Takes a place for a body of `bytes` from `peer`, or says why not: (status, code, message).
    func reserve(peer: String, bytes: Int) -> (status: Int, reason: String, message: String)? {
        open.withLock { open in
            if open.byPeer[peer, default: 0] >= maxUploadsPerIP {
                return (429, "ip_uploads", "more than \(maxUploadsPerIP) request bodies at once from this address")
            }
            if open.count >= maxUploads {
                return (503, "uploads", "the server receives \(maxUploads) request bodies at once already")
            }
            if open.bytes + bytes > maxBytes {
                return (503, "upload_memory", "the request bodies being received would hold more than \(maxBytes) bytes")
            }
            open.count += 1
            open.bytes += bytes
            open.byPeer[peer, default: 0] += 1
            return nil
        }
    }

    /// Gives back the place of a body of `bytes` from `peer`: whole, refused or abandoned.
    func release(peer: String, bytes: Int) {
        open.withLock { open in
            open.count -= 1
            open.bytes -= bytes
            if let n = open.byPeer[peer], n > 1 { open.byPeer[peer] = n - 1 } else { open.byPeer[peer] = nil }
        }
    }

    /// Bodies being received, and the bytes they declared.
    var inFlight: (count: Int, bytes: Int) { open.withLock { ($0.count, $0.bytes) } }
}
