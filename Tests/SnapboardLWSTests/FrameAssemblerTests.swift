import Testing

@testable import SnapboardLWS

@Suite("FrameAssembler: fragments joined, capped, and skipped past the cap")
struct FrameAssemblerTests {
    func feed(_ a: inout FrameAssembler, _ text: String, first: Bool, last: Bool, binary: Bool = false) -> FrameAssembler.Assembled? {
        Array(text.utf8).withUnsafeBytes { a.append($0, first: first, last: last, binary: binary) }
    }

    @Test("Fragments come out as one message, binary flag from the first")
    func joins() {
        var a = FrameAssembler(limit: 100)
        #expect(feed(&a, "{\"a\":", first: true, last: false, binary: true) == nil)
        #expect(feed(&a, "1}", first: false, last: true) == .message(Array("{\"a\":1}".utf8), binary: true))
        #expect(feed(&a, "x", first: true, last: true) == .message([UInt8(ascii: "x")], binary: false))
    }

    @Test("Passing the cap is reported once; the rest of that message is skipped; the next one is whole")
    func capped() {
        var a = FrameAssembler(limit: 8)
        #expect(feed(&a, "12345", first: true, last: false) == nil)
        #expect(feed(&a, "67890", first: false, last: false) == .tooLarge)
        #expect(feed(&a, "more", first: false, last: true) == nil)
        #expect(feed(&a, "12345678", first: true, last: true) == .message(Array("12345678".utf8), binary: false))
    }
}

@Suite("FrameAssembler: what an unfinished message holds")
struct FrameAssemblerHeldTests {
    func feed(_ a: inout FrameAssembler, _ text: String, first: Bool, last: Bool) -> FrameAssembler.Assembled? {
        Array(text.utf8).withUnsafeBytes { a.append($0, first: first, last: last, binary: false) }
    }

    @Test("An unfinished message's bytes are held, and none once it completes, is skipped or is discarded")
    func held() {
        var a = FrameAssembler(limit: 100)
        #expect(feed(&a, "{\"a\":", first: true, last: false) == nil)
        #expect(a.heldBytes == 5)
        #expect(feed(&a, "1}", first: false, last: true) == .message(Array("{\"a\":1}".utf8), binary: false))
        #expect(a.heldBytes == 0)
        #expect(feed(&a, "whole", first: true, last: true) == .message(Array("whole".utf8), binary: false))
        #expect(a.heldBytes == 0)
        #expect(feed(&a, "part", first: true, last: false) == nil)
        a.discard()
        #expect(a.heldBytes == 0 && a.isSkipping)
        #expect(feed(&a, "rest", first: false, last: true) == nil, "the rest of a discarded message is skipped")
        #expect(feed(&a, "next", first: true, last: true) == .message(Array("next".utf8), binary: false))
        #expect(!a.isSkipping)
    }
}
