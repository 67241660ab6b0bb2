import ArgumentParser
import Foundation
import Logging
import SnapboardPostgres
import SnapboardStore

#if canImport(Glibc)
import Glibc
#endif

/// How a node joins a cluster whose canvases live in PostgreSQL (`--database-url`, in `StorageOptions`):
/// who it is, where clients are sent for its canvases, and its lease. Without `--database-url` none of
/// these matter.
struct ClusterOptions: ParsableArguments {
    @Option(help: "This node's id in the cluster, unique among the nodes; default <hostname>-<port> (SNAPBOARD_NODE_ID).")
    var nodeId: String?

    @Option(help: "Where clients are sent for the canvases this node owns (421 and 307 Location); default http://<hostname>:<port> (SNAPBOARD_ADVERTISE_URL).")
    var advertiseUrl: String?

    @Option(help: "Seconds a node's lease lasts unrenewed; it stops acking 2 s before, and others may take its canvases after (SNAPBOARD_LEASE_SECONDS).")
    var leaseSeconds = Double(env("LEASE_SECONDS") ?? "") ?? 10

    @Option(help: "Seconds a commit may take before its connection is closed and the outcome checked (SNAPBOARD_COMMIT_TIMEOUT).")
    var commitTimeout = Double(env("COMMIT_TIMEOUT") ?? "") ?? 5

    static let numberVariables = ["LEASE_SECONDS", "COMMIT_TIMEOUT"]

    /// The longest node id: PostgreSQL keeps 63 bytes of `application_name`, which is `snapboard/<id>`.
    static let maxNodeID = 48

    func check(port: Int) throws {
        for name in Self.numberVariables {
            if let value = env(name), Double(value)?.isFinite != true { throw ValidationError("SNAPBOARD_\(name)=\(value) is not a number") }
        }
        guard (3...600).contains(leaseSeconds) else {
            throw ValidationError("--lease-seconds must be 3...600: a node stops acking 2 s before its lease runs out")
        }
        guard (1...600).contains(commitTimeout) else { throw ValidationError("--commit-timeout must be 1...600 seconds") }
        let givenID = nodeId ?? env("NODE_ID"), givenURL = advertiseUrl ?? env("ADVERTISE_URL")
        if port == 0, givenID == nil || givenURL == nil {
            throw ValidationError("--port 0 with --database-url needs --node-id and --advertise-url: their defaults name the port")
        }
        let id = node(port: port).id
        guard (1...Self.maxNodeID).contains(id.utf8.count), id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
            throw ValidationError("the node id \(id) is not 1–\(Self.maxNodeID) characters of [A-Za-z0-9._-]: give --node-id")
        }
        let url = node(port: port).address
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.count > 8, url.count <= 512,
              url.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "?" && $0 != "#" && !($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? true) }) else {
            throw ValidationError("--advertise-url \(url) is not an http:// or https:// address without spaces, query or fragment")
        }
    }

    /// Who this node is: `--node-id` and `--advertise-url`, or their defaults for `port`.
    func node(port: Int) -> NodeIdentity {
        let host = Self.hostname()
        var address = advertiseUrl ?? env("ADVERTISE_URL") ?? "http://\(host):\(port)"
        while address.hasSuffix("/") { address.removeLast() }
        return NodeIdentity(id: nodeId ?? env("NODE_ID") ?? "\(host)-\(port)", address: address)
    }

    /// The PostgreSQL store of the cluster at `url`, as this node.
    /// Its lease starts with the server (`Shards.start`), before the first claim.
    func open(_ url: String, port: Int, logger: Logger) throws -> CanvasStore {
        var options = PostgresStoreOptions()
        options.lease = .milliseconds(Int64(leaseSeconds * 1000))
        options.commitTimeout = .milliseconds(Int64(commitTimeout * 1000))
        return try PostgresCanvasStore(url: url, node: node(port: port), options: options, logger: logger)
    }

    static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "localhost" }
        return String(cString: buffer)
    }
}
