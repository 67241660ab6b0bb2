/// How a client loop verifies `wss://` servers.
public struct ClientTLS: Sendable, Equatable {
    /// A PEM file of the certificates to trust (a self-signed server's own certificate, or a private CA);
    /// nil trusts the system's store.
    public var caFile: String?

    public init(caFile: String? = nil) { self.caFile = caFile }
}
