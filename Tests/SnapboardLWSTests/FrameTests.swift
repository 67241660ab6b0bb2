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
}
