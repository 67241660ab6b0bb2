import SnapboardCore
import SnapboardProtocol

/// The end-of-run check: every client's replica must equal the server's canvas.
public enum Convergence {
    /// The canvas of a `GET /v1/canvases/{id}` body: its seq and shapes.
    public static func snapshot(fromBody body: [UInt8]) -> (seq: Int, shapes: [ShapeID: Shape])? {
        guard let json = try? JSONValue.parse(body), case .number(let seq)? = json["seq"],
              case .array(let list)? = json["shapes"] else { return nil }
        var shapes: [ShapeID: Shape] = [:]
        for item in list {
            guard let shape = Shape(json: item) else { return nil }
            shapes[shape.id] = shape
        }
        return (Int(seq), shapes)
    }

    /// What differs between a replica and the server's canvas, as sentences; empty when they agree.
    public static func differences(
        replica: [ShapeID: Shape], replicaSeq: Int, server: [ShapeID: Shape], serverSeq: Int, limit: Int = 5
    ) -> [String] {
        var out: [String] = []
        if replicaSeq != serverSeq { out.append("seq \(replicaSeq), server \(serverSeq)") }
        for id in server.keys.sorted() where out.count < limit {
            guard let mine = replica[id] else {
                out.append("shape \(id) missing")
                continue
            }
            if mine != server[id] { out.append("shape \(id) differs: \(describe(mine)), server \(describe(server[id]!))") }
        }
        for id in replica.keys.sorted() where server[id] == nil && out.count < limit {
            out.append("shape \(id) is not on the server")
        }
        return out
    }

    private static func describe(_ s: Shape) -> String {
        "(\(s.center.x), \(s.center.y)) ×\(s.scale) ∠\(s.rotation) z\(s.z)"
    }
}
