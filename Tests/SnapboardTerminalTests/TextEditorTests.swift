import Foundation
import Testing

@testable import snapboard_client

@Suite("The terminal client's text editor: keys in, text ops out")
struct TextEditorTests {
    let start = Date(timeIntervalSince1970: 1_000)

    func typed(_ text: String, into editor: inout TextEditor, at now: Date) {
        for key in text { #expect(editor.key(key, now: now) == .none) }
    }

    @Test("[P26] Enter commits the draft; Escape commits the text it opened with")
    func enterAndEscape() {
        var editor = TextEditor(shape: "n", text: "old", now: start)
        typed("er", into: &editor, at: start)
        #expect(editor.draft == "older")
        var escaped = editor
        #expect(editor.key("\r", now: start) == .end("older"))
        #expect(escaped.key("\u{1B}", now: start) == .end("old"))
    }

    @Test("Backspace deletes the last character, Ctrl-U empties the line, a tab types a space, other control characters are ignored")
    func editingKeys() {
        var editor = TextEditor(shape: "n", text: "ab", now: start)
        #expect(editor.key("\u{7F}", now: start) == .none)
        #expect(editor.draft == "a")
        _ = editor.key("\t", now: start)
        _ = editor.key("\u{01}", now: start)
        _ = editor.key("é", now: start)
        #expect(editor.draft == "a é")
        _ = editor.key("\u{15}", now: start)
        #expect(editor.draft == "")
        _ = editor.key("\u{08}", now: start)
        #expect(editor.draft == "")
    }

    @Test("[P26] A draft goes out once typing pauses for the debounce, and the lease is kept alive while nothing changes")
    func updatesKeepTheLease() {
        var editor = TextEditor(shape: "n", text: "", now: start)
        typed("hi", into: &editor, at: start + 0.1)
        #expect(editor.tick(now: start + 0.2) == .none, "still typing")
        #expect(editor.tick(now: start + 0.1 + TextEditor.debounce) == .update("hi"))
        #expect(editor.tick(now: start + 1.0) == .none, "nothing new, and the lease is fresh")
        let alive = start + 0.1 + TextEditor.debounce + TextEditor.keepAlive
        #expect(editor.tick(now: alive) == .update("hi"))
        #expect(TextEditor.keepAlive <= 2, "P26: an editor sends an update at least every 2 seconds")
    }

    @Test("[P26] A draft never grows past the text limit")
    func limit() {
        var editor = TextEditor(shape: "n", text: String(repeating: "x", count: 4_095), now: start)
        _ = editor.key("é", now: start)
        _ = editor.key("y", now: start)
        #expect(editor.draft.utf8.count == 4_096 && editor.draft.hasSuffix("y"))
    }
}
