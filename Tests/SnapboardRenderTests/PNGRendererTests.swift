import CLibCairo
import SnapboardCore
import SnapboardRender
import Testing

/// A PNG decoded by cairo: its size and the colour of any pixel.
struct DecodedPNG {
    var width: Int, height: Int
    private var stride: Int
    private var data: [UInt32]

    init?(_ bytes: [UInt8]) {
        var source = (bytes: bytes, offset: 0)
        let surface = withUnsafeMutablePointer(to: &source) { reader in
            cairo_image_surface_create_from_png_stream({ closure, data, length in
                guard let source = closure?.assumingMemoryBound(to: (bytes: [UInt8], offset: Int).self), let data else { return CAIRO_STATUS_READ_ERROR }
                let n = Int(length)
                guard source.pointee.offset + n <= source.pointee.bytes.count else { return CAIRO_STATUS_READ_ERROR }
                source.pointee.bytes.withUnsafeBufferPointer { data.update(from: $0.baseAddress! + source.pointee.offset, count: n) }
                source.pointee.offset += n
                return CAIRO_STATUS_SUCCESS
            }, reader)
        }
        guard let surface else { return nil }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, cairo_image_surface_get_format(surface) == CAIRO_FORMAT_ARGB32
                || cairo_image_surface_get_format(surface) == CAIRO_FORMAT_RGB24 else { return nil }
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
        stride = Int(cairo_image_surface_get_stride(surface)) / 4
        let pixels = cairo_image_surface_get_data(surface)!.withMemoryRebound(to: UInt32.self, capacity: stride * height) { $0 }
        data = Array(UnsafeBufferPointer(start: pixels, count: stride * height))
    }

    /// The pixel at column `x`, row `y` as (red, green, blue, alpha), each 0...255, alpha premultiplied as cairo keeps it.
    func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int, a: Int) {
        let v = data[y * stride + x]
        return (Int(v >> 16 & 0xFF), Int(v >> 8 & 0xFF), Int(v & 0xFF), Int(v >> 24))
    }
}

@Suite("PNG export")
struct PNGRendererTests {
    @Test("A PNG starts with the PNG signature and is the canvas's size times the scale, rounded up", arguments: [
        (1.0, 400, 300), (0.5, 200, 150), (2.0, 800, 600), (0.25, 100, 75), (0.33, 132, 99),
    ])
    func sizeByScale(_ scale: Double, _ width: Int, _ height: Int) throws {
        let png = try PNGRenderer.render(CanvasPicture(RenderFixtures.square()), scale: scale)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let decoded = try #require(DecodedPNG(png))
        #expect(decoded.width == width && decoded.height == height)
    }

    @Test("The pixel at a shape's centre has the shape's fill, at any scale; a pixel away from shapes and grid is white")
    func centrePixelHasTheFill() throws {
        let fill = HSBColor(h: 0.6, s: 0.7, b: 0.8, a: 1)
        let rgb = fill.rgb
        for scale in [1.0, 2.0, 0.5] {
            let decoded = try #require(DecodedPNG(try PNGRenderer.render(CanvasPicture(RenderFixtures.square(fill: fill)), scale: scale)))
            let centre = decoded.pixel(Int(100 * scale), Int(80 * scale))
            #expect(abs(centre.r - Int(rgb >> 16 & 0xFF)) <= 1 && abs(centre.g - Int(rgb >> 8 & 0xFF)) <= 1
                    && abs(centre.b - Int(rgb & 0xFF)) <= 1 && centre.a == 255, "scale \(scale): \(centre) for #\(String(rgb, radix: 16))")
            let empty = decoded.pixel(Int(300 * scale), Int(250 * scale) + 3)
            #expect(empty == (255, 255, 255, 255), "scale \(scale): \(empty)")
        }
    }

    @Test("A translucent fill is blended over the white canvas")
    func translucentFill() throws {
        let fill = HSBColor(h: 0, s: 1, b: 1, a: 0.5)  // pure red at half alpha: (255, 128, 128)
        let decoded = try #require(DecodedPNG(try PNGRenderer.render(CanvasPicture(RenderFixtures.square(fill: fill)))))
        let centre = decoded.pixel(100, 80)
        #expect(centre.r == 255 && abs(centre.g - 128) <= 1 && abs(centre.b - 128) <= 1, "\(centre)")
    }

    @Test("Every kind draws, and the same canvas at the same scale gives the same bytes")
    func deterministic() throws {
        let picture = CanvasPicture(RenderFixtures.everyKind())
        let first = try PNGRenderer.render(picture, scale: 1.5)
        #expect(first == (try PNGRenderer.render(picture, scale: 1.5)))
        let decoded = try #require(DecodedPNG(first))
        for shape in RenderFixtures.everyKind().shapes where shape.hatch == .none {
            let p = decoded.pixel(Int(shape.center.x * 1.5), Int(shape.center.y * 1.5))
            let rgb = shape.fill.rgb
            #expect(abs(p.r - Int(rgb >> 16 & 0xFF)) <= 1 && abs(p.g - Int(rgb >> 8 & 0xFF)) <= 1 && abs(p.b - Int(rgb & 0xFF)) <= 1, "\(shape.id): \(p)")
        }
    }

    @Test("Hatch lines darken part of a hatched shape's fill")
    func hatchDraws() throws {
        var snapshot = RenderFixtures.square()
        snapshot.shapes[0].hatch = .crossHatch
        let decoded = try #require(DecodedPNG(try PNGRenderer.render(CanvasPicture(snapshot), scale: 2)))
        let rgb = snapshot.shapes[0].fill.rgb
        var darker = 0
        for x in 170..<230 { if decoded.pixel(x, 160).r < Int(rgb >> 16 & 0xFF) - 8 { darker += 1 } }
        #expect(darker > 0)
    }

    @Test("Past 4096 pixels a side or 16,000,000 in all, or with a scale outside 0.1…4, the render is refused with a clear error")
    func sizeCap() throws {
        #expect(throws: RenderError.scaleOutOfRange(5)) { try PNGRenderer.render(CanvasPicture(RenderFixtures.square()), scale: 5) }
        #expect(throws: RenderError.scaleOutOfRange(0.05)) { try PNGRenderer.render(CanvasPicture(RenderFixtures.square()), scale: 0.05) }
        #expect(throws: RenderError.self) { try PNGRenderer.render(CanvasPicture(RenderFixtures.square()), scale: .nan) }
        let wide = CanvasPicture(RenderFixtures.square(width: 5000, height: 100))
        #expect(throws: RenderError.tooLarge(width: 5000, height: 100, largestScale: 0.81)) { try PNGRenderer.render(wide) }
        let square = CanvasPicture(RenderFixtures.square(width: 4000, height: 4001))
        #expect(throws: RenderError.tooLarge(width: 4000, height: 4001, largestScale: 0.99)) { try PNGRenderer.render(square) }
        let huge = CanvasPicture(RenderFixtures.square(width: 1_000_000, height: 1_000_000))
        do {
            _ = try PNGRenderer.render(huge, scale: 0.1)
            Issue.record("a 100,000-pixel-wide PNG was drawn")
        } catch {
            #expect(error == .tooLarge(width: 100_000, height: 100_000, largestScale: nil))
            #expect(error.message.contains("export it as SVG") && error.code == "bad_request")
        }
        #expect(try PNGRenderer.pixelSize(CanvasPicture(RenderFixtures.square(width: 4096, height: 3906)), scale: 1) == (4096, 3906))
    }
}
