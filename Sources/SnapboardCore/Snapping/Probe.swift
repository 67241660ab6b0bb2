/// The three snappable coordinates of a shape's bounds on one axis: left, centre, right (or top, middle, bottom).
enum Probe: Int, Sendable, CaseIterable {
    case min
    case mid
    case max

    func of(_ rect: Rect, _ axis: Axis) -> Double {
        switch (self, axis) {
        case (.min, .x): rect.minX
        case (.mid, .x): rect.midX
        case (.max, .x): rect.maxX
        case (.min, .y): rect.minY
        case (.mid, .y): rect.midY
        case (.max, .y): rect.maxY
        }
    }
}
