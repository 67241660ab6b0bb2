import Testing

@testable import SnapboardProtocol

@Suite("[P11] Presence names are cleaned plain text")
struct DisplayNameTests {
    @Test("Bidirectional overrides, zero-width characters and controls are removed; markup stays as text")
    func cleaned() {
        #expect(DisplayName.clean("ann\u{202E}gpj.exe") == "anngpj.exe")
        #expect(DisplayName.clean("a\u{200B}n\u{FEFF}n\u{2066}") == "ann")
        #expect(DisplayName.clean("bo\u{0007}b\u{0000}") == "bob")
        #expect(DisplayName.clean("<img src=x onerror=alert(1)>") == "<img src=x onerror=alert(1)>")
        #expect(DisplayName.clean("  Ada \t\n  Lovelace  ") == "Ada Lovelace")
        #expect(DisplayName.clean("Zoë 🎨 李") == "Zoë 🎨 李")
    }

    @Test("Nothing left is no name; at most 64 characters are kept")
    func emptyAndLong() {
        #expect(DisplayName.clean("\u{202E}\u{200B} \t") == nil)
        #expect(DisplayName.clean(String(repeating: "é", count: 100))?.count == 64)
    }

    @Test("The query's name is cleaned as it is parsed")
    func fromQuery() {
        guard case .canvas(let address) = CanvasAddress.route(path: "/v1/canvases/demo", query: "name=%E2%80%AEeve%E2%80%8B") else {
            Issue.record("the address must parse")
            return
        }
        #expect(address.name == "eve")
    }
}
