import Foundation
import SnapboardAuth
import SnapboardProtocol
import SnapboardTesting
import Testing

extension EndToEnd {
    /// The HTTP side of tokens: asking what a token may do, listing with one, minting one; and the welcome's role.
    @Suite("Access checks, listing and minting over HTTP, end to end", .serialized)
    struct TokenEndpointTests {
        static let secret = AccessTests.secret
        static let admin = "an-admin-token-that-is-well-over-32-characters"

        /// A token signed with `secret`, with every claim a test may want wrong.
        static func token(_ canvas: String, _ role: AccessRole = .editor, sub: String = "ada", name: String? = nil, expiresIn: Double = 3600,
                          notBefore: Double? = nil, audience: String? = nil, issuer: String? = nil, secret: String = secret) throws -> String {
            let now = Date().timeIntervalSince1970
            return try TokenSigner(secret: secret).sign(AccessClaims(
                subject: sub, canvas: canvas, role: role, expires: (now + expiresIn).rounded(.down), notBefore: notBefore.map { (now + $0).rounded(.down) },
                name: name, audience: audience, issuer: issuer))
        }

        static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

        static func bearer(_ token: String) -> [String] { ["Authorization: Bearer \(token)"] }

        /// A GET of `path`, its status and parsed body.
        static func get(_ server: ServerProcess, _ path: String, _ headers: [String] = []) throws -> (status: Int, body: JSONValue) {
            let (status, body) = try httpGet(port: server.port, path, headers: headers)
            return (status, try json(body))
        }

        /// A `POST /v1/tokens` with `body`, its status and parsed body.
        static func mint(_ server: ServerProcess, _ body: String, _ headers: [String]) throws -> (status: Int, body: JSONValue) {
            let (status, answer) = try http(port: server.port, "POST", "/v1/tokens", body: body, headers: headers)
            return (status, try json(answer))
        }

        static func ids(_ listing: JSONValue) -> [String] {
            guard case .array(let items)? = listing["canvases"] else { return [] }
            return items.compactMap { if case .string(let id)? = $0["id"] { id } else { nil } }
        }

        @Test("[P19] /access names each token problem with its reason, and /access and every other 401 and the upgrade's refusal say it alike")
        func accessReasons() throws {
            // Access checks are rate-limited per address (the next test): this one asks many in a row.
            let server = try ServerProcess(["--auth-secret", Self.secret, "--jwt-audience", "boards", "--jwt-issuer", "idp",
                                            "--reads-per-second-per-ip", "1000"])
            let good = { (canvas: String, role: AccessRole) in try Self.token(canvas, role, name: "Ada L.", audience: "boards", issuer: "idp") }
            let cases: [(String, String?)] = [
                ("missing", nil),
                ("malformed", "not.a.jwt"),
                ("bad_signature", try Self.token("board", audience: "boards", issuer: "idp", secret: Self.secret + "-other")),
                ("bad_signature", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJlIiwiY2FudmFzIjoiKiIsInJvbGUiOiJlZGl0b3IiLCJleHAiOjQwMDAwMDAwMDB9."),
                ("expired", try Self.token("board", expiresIn: -10, audience: "boards", issuer: "idp")),
                ("not_yet_valid", try Self.token("board", notBefore: 600, audience: "boards", issuer: "idp")),
                ("wrong_canvas", try good("other", .editor)),
                ("wrong_audience", try Self.token("board", audience: "elsewhere", issuer: "idp")),
                ("wrong_issuer", try Self.token("board", audience: "boards", issuer: "someone")),
            ]
            for (reason, token) in cases {
                let access = try Self.get(server, "/v1/canvases/board/access", token.map(Self.bearer) ?? [])
                #expect(access.status == 401, "\(reason)")
                #expect(access.body["error"] == .string("unauthorized") && access.body["reason"] == .string(reason), "\(access.body)")
                #expect(access.body["message"] != nil)
                // The same token on a canvas read and on the upgrade: the same reason.
                let read = try httpGet(port: server.port, "/v1/canvases/board" + (token.map { "?token=" + $0 } ?? ""))
                let readReason = try Self.json(read.body)["reason"]
                #expect(read.status == 401 && readReason == .string(reason), "\(reason): \(read.body)")
                let (upgrade, _) = try rawExchange(port: server.port, "GET /v1/canvases/board" + (token.map { "?token=" + $0 } ?? "")
                    + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + AccessTests.upgrade.joined(separator: "\r\n") + "\r\n\r\n")
                #expect(upgrade.hasPrefix("HTTP/1.1 401") && upgrade.contains(#""reason":"\#(reason)""#), "\(reason): \(upgrade)")
            }
            // A good token, as a header or in the query: its role, user, presence name and expiry.
            let editor = try good("board", .editor)
            let answer = try Self.get(server, "/v1/canvases/board/access", Self.bearer(editor))
            #expect(answer.status == 200)
            #expect(answer.body["canvas"] == .string("board") && answer.body["role"] == .string("editor"))
            #expect(answer.body["user"] == .string("ada") && answer.body["name"] == .string("Ada L.") && answer.body["tokens"] == .bool(true))
            if case .number(let expires)? = answer.body["expiresAt"] {
                #expect(abs(expires - (Date().timeIntervalSince1970 + 3600)) < 120)
            } else {
                Issue.record("no expiresAt in \(answer.body)")
            }
            let viewer = try Self.get(server, "/v1/canvases/board/access?token=" + (try good("b*", .viewer)))
            #expect(viewer.status == 200 && viewer.body["role"] == .string("viewer"))
            // An Origin the server does not allow: 403 with reason origin, whatever the token.
            let foreign = try Self.get(server, "/v1/canvases/board/access", Self.bearer(editor) + ["Origin: https://evil.example"])
            #expect(foreign.status == 403 && foreign.body["error"] == .string("forbidden") && foreign.body["reason"] == .string("origin"))
            // Asking touched no storage: the canvas was never created.
            #expect(try httpGet(port: server.port, "/v1/canvases/board", headers: Self.bearer(editor)).status == 404)
            // Only GET.
            #expect(try http(port: server.port, "POST", "/v1/canvases/board/access", body: "{}").status == 405)
        }

        @Test("[P19] On an open server /access says editor and no tokens; access checks are rate-limited per address like heavy reads")
        func openAccessAndItsBound() throws {
            let server = try ServerProcess(["--reads-per-second-per-ip", "1"])
            let open = try Self.get(server, "/v1/canvases/board/access")
            #expect(open.status == 200)
            #expect(open.body["role"] == .string("editor") && open.body["tokens"] == .bool(false))
            #expect(open.body["user"] == .null && open.body["name"] == .null && open.body["expiresAt"] == .null)
            // One a second from this address: a burst is refused with 429 and Retry-After, not answered.
            var statuses: [Int] = []
            for _ in 0..<20 { statuses.append(try httpGet(port: server.port, "/v1/canvases/board/access").status) }
            #expect(statuses.contains(429), "\(statuses)")
            #expect(Set(statuses).isSubset(of: [200, 429]))
        }

        @Test("[P19] The listing with an access token shows only the canvases its claim covers: a prefix token, an id token, with and without a prefix asked")
        func listingByClaim() throws {
            let server = try ServerProcess(["--auth-secret", Self.secret, "--admin-token", Self.admin])
            for id in ["team", "team-1", "team-2", "teamwork", "other"] {
                let created = try http(port: server.port, "POST", "/v1/canvases/\(id)", body: "{}", headers: Self.bearer(Self.admin))
                #expect(created.status == 201, "\(id): \(created.body)")
            }
            let list = { (path: String, token: String) in try Self.get(server, path, Self.bearer(token)) }
            let everything = try list("/v1/canvases", Self.admin)
            #expect(Self.ids(everything.body) == ["other", "team", "team-1", "team-2", "teamwork"])
            let prefix = try Self.token("team-*", .viewer)
            #expect(Self.ids(try list("/v1/canvases", prefix).body) == ["team-1", "team-2"])
            #expect(Self.ids(try list("/v1/canvases?prefix=team-2", prefix).body) == ["team-2"])
            #expect(Self.ids(try list("/v1/canvases?prefix=te", prefix).body) == ["team-1", "team-2"])
            #expect(Self.ids(try list("/v1/canvases?prefix=oth", prefix).body) == [])
            #expect(Self.ids(try list("/v1/canvases?after=team-1", prefix).body) == ["team-2"])
            let paged = try list("/v1/canvases?limit=1", prefix)
            #expect(Self.ids(paged.body) == ["team-1"] && paged.body["next"] == .string("team-1"))
            // An id token: that canvas alone (not the others its id begins), and nothing when it is not stored.
            let one = try Self.token("team", .editor)
            let listed = try list("/v1/canvases", one)
            #expect(listed.status == 200 && Self.ids(listed.body) == ["team"] && listed.body["next"] == .null)
            #expect(Self.ids(try list("/v1/canvases?prefix=team-", one).body) == [])
            #expect(Self.ids(try list("/v1/canvases", try Self.token("ghost", .editor)).body) == [])
            #expect(Self.ids(try list("/v1/canvases", try Self.token("*", .viewer)).body).count == 5)
            // No token, a token that does not verify, an expired one: 401 with the reason.
            #expect(try Self.get(server, "/v1/canvases").body["reason"] == .string("missing"))
            // An open server lists everything to anyone, with or without a token sent along.
            let open = try ServerProcess()
            #expect(try http(port: open.port, "POST", "/v1/canvases/x", body: "{}").status == 201)
            #expect(Self.ids(try Self.get(open, "/v1/canvases").body) == ["x"])
            #expect(Self.ids(try Self.get(open, "/v1/canvases", Self.bearer(prefix)).body) == ["x"])
            #expect(try Self.get(server, "/v1/canvases", Self.bearer(try Self.token("*", secret: Self.secret + "-x"))).body["reason"] == .string("bad_signature"))
            #expect(try Self.get(server, "/v1/canvases", Self.bearer(try Self.token("*", expiresIn: -5))).body["reason"] == .string("expired"))
            // An access token still changes nothing: changes are the admin's.
            let change = try http(port: server.port, "DELETE", "/v1/canvases/team", headers: Self.bearer(one))
            let changeReason = try Self.json(change.body)["reason"]
            #expect(change.status == 401 && changeReason == .string("admin"))
        }

        @Test("[P19] The admin token mints any token; the minted token opens its canvas with its role, name, audience and issuer")
        func mintingByAdmin() throws {
            let server = try ServerProcess(["--auth-secret", Self.secret, "--admin-token", Self.admin, "--jwt-audience", "boards", "--jwt-issuer", "idp"])
            let minted = try Self.mint(server, #"{"canvas":"board","role":"viewer","ttl":600,"name":"  Cy\u200b  "}"#, Self.bearer(Self.admin))
            #expect(minted.status == 201, "\(minted.body)")
            guard case .string(let token)? = minted.body["token"] else {
                Issue.record("no token in \(minted.body)")
                return
            }
            #expect(minted.body["canvas"] == .string("board") && minted.body["role"] == .string("viewer"))
            #expect(minted.body["link"] == .string("/c/board?token=\(token)"))
            if case .number(let expires)? = minted.body["expiresAt"] {
                #expect(abs(expires - (Date().timeIntervalSince1970 + 600)) < 60)
            } else {
                Issue.record("no expiresAt in \(minted.body)")
            }
            let access = try Self.get(server, "/v1/canvases/board/access", Self.bearer(token))
            #expect(access.status == 200 && access.body["role"] == .string("viewer") && access.body["name"] == .string("Cy"))
            if case .string(let user)? = access.body["user"] { #expect(user.hasPrefix("link-")) } else { Issue.record("no user in \(access.body)") }
            // It verifies at the upgrade too (audience and issuer included), as a viewer.
            let editor = try TestClient(server.url("board", "token=\(try Self.token("board", audience: "boards", issuer: "idp"))"))
            #expect(editor.expect(type: "welcome")?["role"] == .string("editor"))
            let viewer = try TestClient(server.url("board", "token=\(token)"))
            #expect(viewer.expect(type: "welcome")?["role"] == .string("viewer"))
            // A prefix gets no link; the admin may name the sub; without a ttl, a week.
            let prefixed = try Self.mint(server, #"{"canvas":"team-*","role":"editor","sub":"cy@example.com"}"#, Self.bearer(Self.admin))
            #expect(prefixed.status == 201 && prefixed.body["link"] == .null)
            if case .number(let expires)? = prefixed.body["expiresAt"] {
                #expect(abs(expires - (Date().timeIntervalSince1970 + 604_800)) < 60)
            }
            if case .string(let other)? = prefixed.body["token"] {
                #expect(try Self.get(server, "/v1/canvases/team-9/access", Self.bearer(other)).body["user"] == .string("cy@example.com"))
            }
        }

        @Test("[P19] An editor's token mints within its own claim and expiry; a viewer's mints nothing; no token, a bad body, a guess are refused")
        func mintingByToken() throws {
            let server = try ServerProcess(["--auth-secret", Self.secret, "--admin-token", Self.admin])
            let editor = try Self.token("board", .editor, expiresIn: 3600)
            // A week asked, the editor's own hour given.
            let capped = try Self.mint(server, #"{"canvas":"board","role":"viewer"}"#, Self.bearer(editor))
            #expect(capped.status == 201, "\(capped.body)")
            let editorExpires = (Date().timeIntervalSince1970 + 3600)
            if case .number(let expires)? = capped.body["expiresAt"] { #expect(expires <= editorExpires.rounded(.up) && expires > editorExpires - 120) }
            #expect(try Self.mint(server, #"{"canvas":"board","role":"editor","ttl":60}"#, Self.bearer(editor)).status == 201)
            // Nothing beyond what its claim covers, and no sub of its choosing.
            for (body, reason) in [(#"{"canvas":"other","role":"viewer"}"#, "wrong_canvas"), (#"{"canvas":"board*","role":"viewer"}"#, "wrong_canvas"),
                                   (#"{"canvas":"board","role":"viewer","sub":"admin"}"#, "sub")] {
                let refused = try Self.mint(server, body, Self.bearer(editor))
                #expect(refused.status == 403 && refused.body["reason"] == .string(reason), "\(body): \(refused.body)")
            }
            let team = try Self.token("team-*", .editor)
            #expect(try Self.mint(server, #"{"canvas":"team-1","role":"editor"}"#, Self.bearer(team)).status == 201)
            #expect(try Self.mint(server, #"{"canvas":"team-x-*","role":"viewer"}"#, Self.bearer(team)).status == 201)
            #expect(try Self.mint(server, #"{"canvas":"*","role":"viewer"}"#, Self.bearer(team)).status == 403)
            // A viewer's token mints no editor, and no viewer either.
            let viewer = try Self.token("board", .viewer)
            for role in ["editor", "viewer"] {
                let refused = try Self.mint(server, #"{"canvas":"board","role":"\#(role)"}"#, Self.bearer(viewer))
                #expect(refused.status == 403 && refused.body["reason"] == .string("role"))
            }
            // Bodies out of range: 400 with what is wrong.
            let bad = [
                #"{"canvas":"board","role":"viewer","ttl":59}"#, #"{"canvas":"board","role":"viewer","ttl":2592001}"#,
                #"{"canvas":"board","role":"viewer","ttl":90.5}"#, #"{"canvas":"board","role":"viewer","ttl":"1h"}"#,
                #"{"canvas":"board","role":"owner"}"#, #"{"canvas":"bad name","role":"viewer"}"#, #"{"role":"viewer"}"#,
                #"{"canvas":"board","role":"viewer","tll":600}"#, #"{"canvas":"board","role":"viewer","name":"\#(String(repeating: "n", count: 65))"}"#,
                #"{"canvas":"board","role":"viewer","name":"\u200b"}"#, #"["board"]"#, "not json",
            ]
            for body in bad {
                let refused = try Self.mint(server, body, Self.bearer(Self.admin))
                #expect(refused.status == 400 && refused.body["error"] == .string("bad_request"), "\(body): \(refused.body)")
            }
            // No token, an expired one: 401 with the reason.
            #expect(try Self.mint(server, #"{"canvas":"board","role":"viewer"}"#, []).body["reason"] == .string("missing"))
            #expect(try Self.mint(server, #"{"canvas":"board","role":"viewer"}"#, Self.bearer(try Self.token("board", expiresIn: -5))).body["reason"] == .string("expired"))
            #expect(try http(port: server.port, "GET", "/v1/tokens").status == 405)
            // Guesses at the admin token count as everywhere else: after ten, 429 without a check.
            for _ in 0..<10 {
                #expect(try Self.mint(server, #"{"canvas":"board","role":"editor"}"#, Self.bearer("guess-\(UUID().uuidString)")).status == 401)
            }
            let held = try http(port: server.port, "POST", "/v1/tokens", body: #"{"canvas":"board","role":"editor"}"#, headers: Self.bearer(Self.admin))
            #expect(held.status == 429)
        }

        @Test("[P19] A server without a token secret mints nothing: 404 not_found, with or without the admin token, and with a public key only")
        func mintingWithoutSecret() throws {
            let server = try ServerProcess(["--admin-token", Self.admin])
            let answer = try Self.mint(server, #"{"canvas":"board","role":"viewer"}"#, Self.bearer(Self.admin))
            #expect(answer.status == 404 && answer.body["error"] == .string("not_found"))
            #expect(answer.body["message"] == .string("this server does not use access tokens"))
            let open = try ServerProcess()
            #expect(try Self.mint(open, #"{"canvas":"board","role":"viewer"}"#, []).status == 404)
            // A server that verifies with a public key only holds nothing to sign with.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("snapboard-keys-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let publicPEM = try makeKeyPair(in: folder).publicPEM
            let keyed = try ServerProcess(["--auth-public-key", publicPEM, "--admin-token", Self.admin])
            let refused = try Self.mint(keyed, #"{"canvas":"board","role":"viewer"}"#, Self.bearer(Self.admin))
            #expect(refused.status == 404 && refused.body["error"] == .string("not_found"), "\(refused.body)")
        }

        @Test("[P3] The welcome says the session's effective role: a token's, narrowed by the query, or the query's on an open server")
        func welcomeRole() throws {
            let server = try ServerProcess(["--auth-secret", Self.secret])
            let editor = try Self.token("board", .editor)
            let roles = [("token=\(editor)", "editor"), ("token=\(editor)&role=viewer", "viewer"),
                         ("token=\(try Self.token("board", .viewer))&role=editor", "viewer")]
            for (query, role) in roles {
                let client = try TestClient(server.url("board", query))
                #expect(client.expect(type: "welcome")?["role"] == .string(role), "\(query)")
            }
            let open = try ServerProcess()
            #expect(try TestClient(open.url("board")).expect(type: "welcome")?["role"] == .string("editor"))
            #expect(try TestClient(open.url("board", "role=viewer")).expect(type: "welcome")?["role"] == .string("viewer"))
        }

        @Test("A /c/ path whose canvas name is not valid gets a 404 HTML page that says the naming rule and links to the start page")
        func badCanvasPage() throws {
            let server = try ServerProcess()
            // With shards, the acceptor answers a /c/ path that is not canonical itself, with the same page.
            let sharded = try ServerProcess(["--shards", "2"])
            for (port, path) in [server.port, sharded.port].flatMap({ port in
                ["/c/bad%20name", "/c/", "/c/a.b", "/c/\(String(repeating: "x", count: 65))"].map { (port, $0) }
            }) {
                let (response, _) = try rawExchange(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                let head = response.components(separatedBy: "\r\n\r\n").first?.lowercased() ?? ""
                #expect(head.hasPrefix("http/1.1 404"), "\(path): \(head)")
                #expect(head.contains("content-type: text/html"), "\(path): \(head)")
                #expect(head.contains("content-security-policy: default-src 'none'"))
                #expect(response.contains("Not a canvas name") && response.contains("1–64 characters") && response.contains(#"href="/""#), "\(path)")
                // Nothing the policy would block: no inline script or style.
                #expect(!response.contains("<script") && !response.contains("<style") && !response.contains("style="))
            }
            #expect(try httpGet(port: server.port, "/c/team-retro").status == 200)
            #expect(try httpGet(port: sharded.port, "/c/team-retro").status == 200)
        }
    }
}
