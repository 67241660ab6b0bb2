import SnapboardProtocol
import Testing

@Suite("Frame: owned bytes with headroom")
struct FrameTests {
    @Test("A frame keeps the message's payload behind zeroed headroom; a batch is a JSON array of payloads")
    func payloadAndBatch() {
        let ack = ServerMessage.ack(id: "x", seq: 1)
        let frame = Frame(payload: ack)
        #expect(frame.bytes == ack)
        #expect(frame.withHeadroom.prefix(Frame.headroom).allSatisfy { $0 == 0 })
        let batch = Frame(batch: [frame, Frame(payload: Array("2".utf8))])
        #expect(String(decoding: batch.bytes, as: UTF8.self) == #"[{"type":"ack","id":"x","seq":1},2]"#)
        let pong = ServerMessage.pong(t: .number(2))
        #expect(Frame(batch: [frame, Frame(payload: pong)]).bytes == Array("[".utf8) + ack + Array(",".utf8) + pong + Array("]".utf8))
    }

    @Test("A frame with bytes inserted holds the payload with them at the index, headroom zeroed", arguments: [0, 3, 6])
    func inserting(at index: Int) {
        let payload = Array("abcdef".utf8), insert = Array("XY".utf8)
        let frame = Frame(payload: payload, inserting: insert, at: index)
        #expect(frame.bytes == Array(payload[..<index]) + insert + Array(payload[index...]))
        #expect(frame.count == 8 && frame.withHeadroom.prefix(Frame.headroom).allSatisfy { $0 == 0 })
        #expect(Frame(payload: payload, inserting: [], at: index).bytes == payload)
    }
}
