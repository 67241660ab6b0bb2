import ArgumentParser
import Foundation
import SnapboardLWSClient

/// Asks a running server whether it is up: a health check that needs no curl in the image.
struct Health: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exits 0 when the server answers GET /healthz with ok, 1 otherwise (a container health check).",
        discussion: """
            A server started with SNAPBOARD_TLS_CERT (or given --tls-cert here) is asked over https, its \
            certificate verified against that file (or --ca-file) but not against the name 127.0.0.1.
            """)

    @Option(help: "The server's address (SNAPBOARD_HOST; 0.0.0.0 means this machine).")
    var host = env("HOST") ?? "127.0.0.1"

    @Option(help: "The server's port (SNAPBOARD_PORT).")
    var port = Int(env("PORT") ?? "") ?? 8080

    @Option(help: "Seconds to wait for the answer.")
    var timeout = 3

    @Option(help: ArgumentHelp("Ask over https: the server's certificate (SNAPBOARD_TLS_CERT), trusted as is.", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("Over https, trust the certificates in this PEM file instead (a CA's).", valueName: "file"))
    var caFile: String?

    func run() throws {
        let target = host == "0.0.0.0" || host.isEmpty ? "127.0.0.1" : host
        let certificate = tlsCert ?? env("TLS_CERT")
        do {
            let (status, body) = if let certificate {
                // The name on the certificate is the public one, not the address asked here: the chain is checked.
                try httpsGet(host: target, port: port, "/healthz", caFile: caFile ?? certificate, verifyName: false, timeout: Double(timeout))
            } else {
                try httpGet(host: target, port: port, "/healthz", timeout: timeout)
            }
            let text = String(decoding: body, as: UTF8.self)
            guard status == 200, text.contains(#""status":"ok""#) else {
                print("unhealthy: HTTP \(status) \(text)")
                throw ExitCode(1)
            }
            print(text)
        } catch let error as WebSocketError {
            print("unhealthy: \(error)")
            throw ExitCode(1)
        }
    }
}
