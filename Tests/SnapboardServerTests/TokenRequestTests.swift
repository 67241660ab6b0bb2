import SnapboardAuth
import SnapboardStore
import Testing

@testable import SnapboardServer

/// The parts of minting and listing that need no socket: the body of `POST /v1/tokens`, which canvases a
/// token may hand on, and which a listing with a token shows.
@Suite("Token requests and listings by claim")
struct TokenRequestTests {
    static func parse(_ text: String) -> Result<TokenRequest, TokenRequest.Invalid> { TokenRequest.parse(Array(text.utf8)) }

    @Test("A body in range reads with its defaults: a week, no name, no sub; the name is cleaned as presence cleans it")
    func good() throws {
        #expect(try Self.parse(#"{"canvas":"board","role":"viewer"}"#).get() == TokenRequest(canvas: "board", role: .viewer, ttl: 604_800))
        let full = try Self.parse(#"{"canvas":"team-*","role":"editor","ttl":60,"name":" Cy \u202e ","sub":"cy"}"#).get()
        #expect(full == TokenRequest(canvas: "team-*", role: .editor, ttl: 60, name: "Cy", subject: "cy"))
        #expect(try Self.parse(#"{"canvas":"*","role":"viewer","ttl":2592000}"#).get().ttl == 2_592_000)
        let one = try Self.parse(#"{"canvas":"b","role":"viewer"}"#).get()
        #expect(!full.namesOneCanvas && one.namesOneCanvas)
    }

    @Test("Every field out of range, a field the endpoint does not know, and what is not an object, are refused", arguments: [
        #"{"canvas":"board","role":"viewer","ttl":59}"#, #"{"canvas":"board","role":"viewer","ttl":2592001}"#,
        #"{"canvas":"board","role":"viewer","ttl":600.5}"#, #"{"canvas":"board","role":"viewer","ttl":1e400}"#,
        #"{"canvas":"board","role":"viewer","ttl":null}"#, #"{"canvas":"board","role":"admin"}"#, #"{"canvas":"board"}"#,
        #"{"canvas":"","role":"viewer"}"#, #"{"canvas":"a/b","role":"viewer"}"#, #"{"canvas":"a*b","role":"viewer"}"#,
        #"{"canvas":"**","role":"viewer"}"#, #"{"canvas":7,"role":"viewer"}"#, #"{"canvas":"board","role":"viewer","name":""}"#,
        #"{"canvas":"board","role":"viewer","name":"\u200b\u200b"}"#, #"{"canvas":"board","role":"viewer","sub":""}"#,
        #"{"canvas":"board","role":"viewer","exp":4000000000}"#, "[]", "", "{",
    ])
    func bad(_ body: String) {
        guard case .failure(let why) = Self.parse(body) else {
            Issue.record("\(body) was taken")
            return
        }
        #expect(!why.message.isEmpty)
    }

    @Test("A token hands on only what its claim covers: an id itself, a prefix's ids and narrower prefixes")
    func covers() {
        let id = AccessClaims(subject: "s", canvas: "board", role: .editor, expires: 0)
        #expect(id.covers(claim: "board") && !id.covers(claim: "board*") && !id.covers(claim: "board-2") && !id.covers(claim: "*"))
        let prefix = AccessClaims(subject: "s", canvas: "team-*", role: .editor, expires: 0)
        #expect(prefix.covers(claim: "team-1") && prefix.covers(claim: "team-*") && prefix.covers(claim: "team-x-*"))
        #expect(!prefix.covers(claim: "team*") && !prefix.covers(claim: "*") && !prefix.covers(claim: "other"))
        let all = AccessClaims(subject: "s", canvas: "*", role: .editor, expires: 0)
        #expect(all.covers(claim: "*") && all.covers(claim: "x-*") && all.covers(claim: "x"))
    }

    @Test("A listing with a token reads the narrower of its prefix and the claim's, and an id claim shows that id alone")
    func listingPrefix() {
        func query(_ prefix: String, _ claim: String?) -> CanvasListQuery {
            var q = CanvasListQuery()
            (q.prefix, q.claim) = (prefix, claim)
            return q
        }
        #expect(query("", nil).storePrefix == "" && query("ab", nil).storePrefix == "ab")
        #expect(query("", "team-*").storePrefix == "team-" && query("team-4", "team-*").storePrefix == "team-4")
        #expect(query("te", "team-*").storePrefix == "team-" && query("other", "team-*").storePrefix == nil)
        #expect(query("", "*").storePrefix == "" && query("x", "*").storePrefix == "x")
        #expect(query("bo", "board").storePrefix == "board" && query("board-1", "board").storePrefix == nil)
        let board = query("", "board")
        #expect(board.admits(CanvasSummary(id: "board", seq: 0, changedAt: nil)))
        #expect(!board.admits(CanvasSummary(id: "board-2", seq: 0, changedAt: nil)))
        #expect(query("", "board*").admits(CanvasSummary(id: "board-2", seq: 0, changedAt: nil)))
    }

    @Test("Every token problem has the reason the 401 body gives", arguments: [
        (TokenError.missing, "missing"), (.malformed("x"), "malformed"), (.unsupportedAlgorithm("none"), "bad_signature"),
        (.badSignature, "bad_signature"), (.expired, "expired"), (.notYetValid, "not_yet_valid"), (.wrongCanvas, "wrong_canvas"),
        (.wrongAudience, "wrong_audience"), (.wrongIssuer, "wrong_issuer"),
    ])
    func reasons(_ error: TokenError, _ reason: String) {
        #expect(error.reason == reason)
    }
}
