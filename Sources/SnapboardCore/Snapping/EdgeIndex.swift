/// A sorted index of the snappable coordinates along one axis: for each shape its min, centre and max.
///
/// Values and owners are parallel arrays sorted by value, so a nearest-candidate query is a binary search
/// plus a short walk past excluded owners: O(log n) whatever the number of shapes.
/// Owner `canvasOwner` marks the canvas's own edges and centre.
struct EdgeIndex: Sendable {
    static let canvasOwner: Int32 = -1

    private(set) var values: [Double] = []
    private(set) var owners: [Int32] = []

    var count: Int { values.count }

    init() {}

    /// An index of entries already sorted by value.
    init(sorted entries: [(Double, Int32)]) {
        values = entries.map(\.0)
        owners = entries.map(\.1)
    }

    /// The first position whose value is not less than `v`.
    func lowerBound(_ v: Double) -> Int {
        var lo = 0, hi = values.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if values[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    mutating func insert(_ v: Double, owner: Int32) {
        let i = lowerBound(v)
        values.insert(v, at: i)
        owners.insert(owner, at: i)
    }

    mutating func remove(_ v: Double, owner: Int32) {
        var i = lowerBound(v)
        while i < values.count, values[i] == v {
            if owners[i] == owner {
                values.remove(at: i)
                owners.remove(at: i)
                return
            }
            i += 1
        }
        assertionFailure("edge \(v) of owner \(owner) was not indexed")
    }

    /// The value nearest to `v`, at most `within` from it, whose owner is not excluded; ties go to the lower
    /// value. The walk past excluded owners stops at `within`, so many shapes under gestures elsewhere on the
    /// canvas cost nothing.
    func nearest(to v: Double, within: Double = .infinity, excluding isExcluded: (Int32) -> Bool) -> (value: Double, owner: Int32)? {
        let start = lowerBound(v)
        var up = start, down = start - 1
        while up < values.count, values[up] - v <= within, isExcluded(owners[up]) { up += 1 }
        while down >= 0, v - values[down] <= within, isExcluded(owners[down]) { down -= 1 }
        if up < values.count, values[up] - v > within { up = values.count }
        if down >= 0, v - values[down] > within { down = -1 }
        switch (down >= 0, up < values.count) {
        case (false, false): return nil
        case (true, false): return (values[down], owners[down])
        case (false, true): return (values[up], owners[up])
        case (true, true):
            return v - values[down] <= values[up] - v ? (values[down], owners[down]) : (values[up], owners[up])
        }
    }

    /// Calls `body` with every owner of exactly the value `v`.
    func forEachOwner(at v: Double, _ body: (Int32) -> Void) {
        var i = lowerBound(v)
        while i < values.count, values[i] == v {
            body(owners[i])
            i += 1
        }
    }

    /// True when some owner other than the excluded ones holds exactly `v`.
    func contains(_ v: Double, owner: Int32) -> Bool {
        var found = false
        forEachOwner(at: v) { if $0 == owner { found = true } }
        return found
    }
}
