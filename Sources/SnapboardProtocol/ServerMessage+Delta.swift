import SnapboardCore

/// Deltas: what changed on a canvas, shared by every session, with haptics added to the copy of the session that felt them.
extension ServerMessage {
    /// A delta; `haptics` are added only to the copy for the session that caused them.
    public static func delta(_ d: Delta, haptics: [Haptic] = [], compact: Bool = false) -> [UInt8] {
        adding(haptics, to: delta(d, compact: compact))
    }

    /// The shared copy of a delta, which every session but the ones with haptics gets. `compact` (1.4, for
    /// clients that asked with `revision=4`) writes a live delta's shapes as `placed`, their placement only:
    /// `[id, x, y, w, h, scale, rotation, z]` each, since a gesture changes nothing else (P8).
    private static func delta(_ d: Delta, compact: Bool) -> [UInt8] {
        var w = JSONWriter(reserving: 128 + d.shapes.count * (compact && d.live ? 64 : 160))
        w.beginObject()
        w.string("type", "delta")
        w.number("seq", d.seq)
        w.number("by", d.by)
        w.beginArray("ops")
        for op in d.ops { w.string(op) }
        w.endArray()
        if compact && d.live {
            w.beginArray("placed")
            // By index: a shape bound by `for` is a copy, with a retain and a release of each of its strings.
            for i in d.shapes.indices {
                w.beginArray()
                w.string(d.shapes[i].id)
                w.number(d.shapes[i].center.x)
                w.number(d.shapes[i].center.y)
                w.number(d.shapes[i].size.width)
                w.number(d.shapes[i].size.height)
                w.number(d.shapes[i].scale)
                w.number(d.shapes[i].rotation)
                w.number(d.shapes[i].z)
                w.endArray()
            }
            w.endArray()
        } else {
            w.beginArray("shapes")
            for shape in d.shapes { writeShape(&w, shape) }
            w.endArray()
            w.beginArray("removed")
            for id in d.removed { w.string(id) }
            w.endArray()
            w.bool("cleared", d.cleared)
        }
        w.beginArray("events")
        for g in d.guides {
            w.beginObject()
            w.fields(g.axis == .x ? #""type":"guide","axis":"x""# : #""type":"guide","axis":"y""#)
            w.number("at", g.at)
            w.number("from", g.from)
            w.number("to", g.to)
            w.string("target", g.target.wireValue)
            w.endObject()
        }
        for g in d.gaps {
            w.beginObject()
            w.fields(g.axis == .x ? #""type":"gap","axis":"x""# : #""type":"gap","axis":"y""#)
            w.number("gap", g.gap)
            w.beginArray("segments")
            for s in g.segments {
                w.beginArray()
                w.number(s.from)
                w.number(s.to)
                w.number(s.at)
                w.endArray()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.bool("live", d.live)
        w.endObject()
        return w.bytes
    }

    /// The copy of an already serialised delta (`delta(_:)`) for the session that caused `haptics`: the
    /// shared bytes up to the end of `events`, the haptics, and the rest. A tick's delta is serialised
    /// once however many draggers felt a snap in it.
    public static func adding(_ haptics: [Haptic], to shared: [UInt8]) -> [UInt8] {
        guard let (at, insert) = hapticsSplice(haptics, into: shared) else { return shared }
        var out = shared
        out.insert(contentsOf: insert, at: at)
        return out
    }

    /// The frame `adding(_:to:)` gives, written in one copy of the shared bytes.
    public static func frame(adding haptics: [Haptic], to shared: [UInt8], shared frame: Frame) -> Frame {
        guard let (at, insert) = hapticsSplice(haptics, into: shared) else { return frame }
        return Frame(payload: shared, inserting: insert, at: at)
    }

    /// Where `haptics` go into a serialised delta, and their bytes: the elements that continue its `events`
    /// array, with the comma that separates them from the events before. Nil when there are none to add.
    private static func hapticsSplice(_ haptics: [Haptic], into shared: [UInt8]) -> (at: Int, bytes: [UInt8])? {
        // The shared copy ends with `…],"live":true}` or `…],"live":false}`: the last `]` closes `events`.
        guard !haptics.isEmpty, let close = shared.lastIndex(of: UInt8(ascii: "]")) else { return nil }
        var w = JSONWriter(reserving: haptics.count * 56)
        w.beginArray()
        for h in haptics {
            w.beginObject()
            w.fields(#""type":"haptic""#)
            w.string("style", h.style)
            w.fields(h.reason.field)
            w.endObject()
        }
        w.endArray()
        var bytes = w.take()
        // The array's elements, without its brackets, continue the shared events array.
        bytes.removeLast()
        if shared[close - 1] == UInt8(ascii: "[") { bytes.removeFirst() } else { bytes[0] = UInt8(ascii: ",") }
        return (close, bytes)
    }
}

extension Haptic.Reason {
    /// `"reason":"…"`, as a haptic event writes it.
    fileprivate var field: StaticString {
        switch self {
        case .edge: #""reason":"edge""#
        case .grid: #""reason":"grid""#
        case .angle: #""reason":"angle""#
        case .gap: #""reason":"gap""#
        case .anchor: #""reason":"anchor""#
        }
    }
}
