import Foundation
import SnapboardCore

/// The one-line editor the interactive view opens in its status line on a shape's text (1.7, P26), as a value:
/// keys and the clock go in, what to send comes out. The view sends the `text` op's `begin` when it opens one.
///
/// The server holds the edit's lease only while updates keep coming (5 s without one and it commits the last
/// draft), so `tick` asks for an update once the draft has settled for `debounce` seconds, and at least every
/// `keepAlive` seconds even when nothing changed.
struct TextEditor: Equatable {
    let shape: ShapeID
    /// The text when the editor opened: what Escape puts back (the server answers `unchanged`).
    let original: String
    private(set) var draft: String
    /// The draft the server last heard, and when.
    private(set) var sent: String
    private(set) var sentAt: Date
    private var changedAt: Date

    /// How long the draft must stay still before an update carries it.
    static let debounce = 0.2
    /// The longest between two updates while the editor is open, well inside the server's 5 s lease.
    static let keepAlive = 1.5

    /// What the editor wants sent.
    enum Action: Equatable {
        case none
        /// A `text` update with the draft so far.
        case update(String)
        /// A `text` end committing this text; the editor is done.
        case end(String)
    }

    init(shape: ShapeID, text: String, now: Date) {
        self.shape = shape
        self.original = text
        self.draft = text
        self.sent = text
        self.sentAt = now
        self.changedAt = now
    }

    /// One key: Enter commits the draft, Escape commits the original text, Backspace removes the last
    /// character, Ctrl-U empties the draft, a tab types a space; other control characters are ignored, and so
    /// is a character that would take the text past `ShapeText.maxBytes`.
    mutating func key(_ key: Character, now: Date) -> Action {
        switch key {
        case "\r", "\n":
            return .end(draft)
        case "\u{1B}":
            return .end(original)
        case "\u{7F}", "\u{08}":
            guard !draft.isEmpty else { return .none }
            draft.removeLast()
        case "\u{15}":
            draft = ""
        default:
            let typed: Character = key == "\t" ? " " : key
            guard ShapeText.isValid(String(typed)), draft.utf8.count + typed.utf8.count <= ShapeText.maxBytes else { return .none }
            draft.append(typed)
        }
        changedAt = now
        return .none
    }

    /// An update when one is due: the draft changed and has settled, or the lease needs keeping alive.
    mutating func tick(now: Date) -> Action {
        let settled = draft != sent && now.timeIntervalSince(changedAt) >= Self.debounce
        guard settled || now.timeIntervalSince(sentAt) >= Self.keepAlive else { return .none }
        sent = draft
        sentAt = now
        return .update(draft)
    }
}
