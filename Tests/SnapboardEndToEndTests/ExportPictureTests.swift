import Foundation
import SnapboardLWSClient
import SnapboardProtocol
import SnapboardTesting
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

extension EndToEnd {
    /// `GET /v1/canvases/{id}/export?format=svg|png`: the canvas drawn on the server, from what clients snapped.
    @Suite("Export as SVG and PNG, end to end", .serialized)
    struct ExportPictureTests {
        /// The elements of an XML document and their attributes; nil when it is not well-formed.
        final class Elements: NSObject, XMLParserDelegate {
            var found: [(name: String, attributes: [String: String])] = []

            static func parse(_ text: String) -> [(name: String, attributes: [String: String])]? {
                let elements = Elements()
                let parser = XMLParser(data: Data(text.utf8))
                parser.delegate = elements
                return parser.parse() ? elements.found : nil
            }

            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) {
                found.append((name, attributes))
            }
        }

        /// A PNG's width and height from its IHDR chunk, when it starts with the PNG signature.
        static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
            guard bytes.count > 24, Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
                  String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR" else { return nil }
            func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
            return (word(16), word(20))
        }

        @Test("Shapes snapped over a WebSocket come back as an SVG (each a path in its fill, ids as given) and as a PNG the canvas's size times the scale")
        func snappedShapesExport() throws {
            let server = try ServerProcess()
            let client = try TestClient(server.url("pics"))
            _ = client.expect(type: "welcome")
            let shapes = [
                ("red", #""x":200,"y":200,"shapeId":"red","shape":{"kind":"oval","w":120,"h":80,"fill":{"h":0,"s":1,"b":1,"a":1},"hatch":"none"}"#),
                ("star-1", #""x":500,"y":300,"shapeId":"star-1","shape":{"kind":"star","w":150,"h":150,"fill":{"h":0.33,"s":0.8,"b":0.9,"a":0.8},"hatch":"crossHatch"}"#),
                ("net", #""x":800,"y":500,"shapeId":"net","shape":{"kind":"fractal","w":160,"h":160,"depth":3,"fill":{"h":0.6,"s":0.5,"b":0.9,"a":1},"hatch":"hatch"}"#),
            ]
            for (n, (id, fields)) in shapes.enumerated() {
                client.op("s\(n)", "snap", fields)
                #expect(client.expect(type: "ack") { $0["id"] == .string("s\(n)") } != nil, "\(id)")
            }

            let svg = try RawHTTP.exchange(port: server.port, "GET /v1/canvases/pics/export?format=svg HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(svg.status == 200 && svg.header("Content-Type") == "image/svg+xml", "\(svg.status) \(svg.head)")
            let elements = try #require(Elements.parse(svg.body), "not well-formed: \(svg.body.prefix(300))")
            #expect(elements.first?.name == "svg" && elements.first?.attributes["width"] == "1024" && elements.first?.attributes["height"] == "768")
            #expect(elements.filter { $0.attributes["class"] == "shape" }.map { $0.attributes["data-id"] ?? "" } == shapes.map(\.0))
            let fills = elements.filter { $0.attributes["fill-rule"] == "evenodd" }
            #expect(fills.count == 3 && fills.first?.attributes["fill"] == "#ff0000" && fills.first?.attributes["fill-opacity"] == "1")
            // The star and the fractal are hatched: lines clipped to their outlines.
            #expect(elements.filter { $0.attributes["clip-path"] != nil }.count == 2)

            let png = try SnapboardLWSClient.httpGet(port: server.port, "/v1/canvases/pics/export?format=png&scale=0.5")
            #expect(png.status == 200)
            let size = try #require(Self.pngSize(png.body), "not a PNG: \(png.body.prefix(16))")
            #expect(size == (512, 384))
            let full = try SnapboardLWSClient.httpGet(port: server.port, "/v1/canvases/pics/export?format=png")
            #expect(Self.pngSize(full.body).map { $0 == (1024, 768) } == true)
            // Drawn the same way twice; the head says what it is.
            #expect(try SnapboardLWSClient.httpGet(port: server.port, "/v1/canvases/pics/export?format=png").body == full.body)
            let head = try RawHTTP.exchange(port: server.port, "GET /v1/canvases/pics/export?format=png&scale=2 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(head.status == 200 && head.header("Content-Type") == "image/png")

            // The default is still the JSON export that PUT imports.
            let json = try httpGet(port: server.port, "/v1/canvases/pics/export")
            #expect(json.status == 200)
            let exported = try JSONValue.parse(Array(json.body.utf8))
            #expect(exported["shapes"]?[0]?["id"] == .string("red") && exported["id"] == .string("pics"))
            #expect(try httpGet(port: server.port, "/v1/canvases/pics/export?format=json").body == json.body)
        }

        @Test("An unknown format, or a scale outside 0.1…4 or not a number, is 400 bad_request saying why", arguments: [
            ("format=gif", "format must be json, svg or png"), ("format=", "format must be json, svg or png"),
            ("format=png&scale=5", "scale must be a number from 0.1 to 4"), ("format=png&scale=0", "scale must be"),
            ("format=png&scale=abc", "scale must be"), ("format=png&scale=nan", "scale must be"), ("format=svg&scale=-1", "scale must be"),
        ])
        func badQueries(_ query: String, _ says: String) throws {
            let server = try ServerProcess()
            #expect(try http(port: server.port, "POST", "/v1/canvases/pics", body: "{}").status == 201)
            let answer = try httpGet(port: server.port, "/v1/canvases/pics/export?" + query)
            #expect(answer.status == 400 && answer.body.contains(#""error":"bad_request""#) && answer.body.contains(says), "\(query): \(answer)")
        }

        @Test("A canvas too large for a PNG at the asked scale is refused with the largest scale that fits; its SVG is drawn; an unknown canvas is 404")
        func tooLargeForPNG() throws {
            let server = try ServerProcess()
            #expect(try http(port: server.port, "POST", "/v1/canvases/wide", body: #"{"width":8000,"height":1000}"#).status == 201)
            let refused = try httpGet(port: server.port, "/v1/canvases/wide/export?format=png")
            #expect(refused.status == 400 && refused.body.contains("8000×1000 pixels") && refused.body.contains("a scale of 0.51 or less fits"), "\(refused)")
            let fits = try SnapboardLWSClient.httpGet(port: server.port, "/v1/canvases/wide/export?format=png&scale=0.5")
            #expect(fits.status == 200 && Self.pngSize(fits.body).map { $0 == (4000, 500) } == true)
            #expect(try httpGet(port: server.port, "/v1/canvases/wide/export?format=svg").status == 200)
            for format in ["svg", "png", "json"] {
                #expect(try httpGet(port: server.port, "/v1/canvases/nowhere/export?format=\(format)").status == 404)
            }
        }
    }
}
