// swift-tools-version: 6.1
import PackageDescription

// The service thread's targets and the load tool's, in release builds, without run-time exclusivity checks
// (docs/architecture.md).
let unchecked: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

// Dependency arrows point one way, towards SnapboardCore: the pure domain depends on nothing,
// so most tests build without libwebsockets or SQLite.
let package = Package(
    name: "Snapboard",
    // macOS 15: `Synchronization.Mutex`.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SnapboardCore", targets: ["SnapboardCore"]),
        .library(name: "SnapboardProtocol", targets: ["SnapboardProtocol"]),
        // What an app (an Apple one over URLSessionWebSocketTask too) links to talk to a Snapboard server.
        .library(name: "SnapboardClient", targets: ["SnapboardClient"]),
        .executable(name: "snapboard-server", targets: ["snapboard-server"]),
        .executable(name: "snapboard-client", targets: ["snapboard-client"]),
        .executable(name: "snapboard-engine", targets: ["snapboard-engine"]),
        .executable(name: "snapboard-bench", targets: ["snapboard-bench"]),
        .executable(name: "snapboard-load", targets: ["snapboard-load"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.1.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
    ],
    targets: [
        // libwebsockets 4.1 (Debian's libwebsockets-dev) behind a shim for what Swift cannot import.
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        // libpq (Debian's libpq-dev), the PostgreSQL client library, for the cluster store.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // cairo (Debian's libcairo2-dev), for the PNG export.
        .systemLibrary(name: "CLibCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        // Linux's epoll, eventfd and TCP options, which Glibc's module does not export: a header, no library.
        .systemLibrary(name: "CSnapboardEpoll"),
        // How Snapboard uses libwebsockets, in C: context and client-connect options, loading libev, malloc_trim.
        .target(name: "CSnapboardLWS", dependencies: ["CLibWebSockets"]),
        // Geometry, shapes, grids, snapping, gestures and operations: pure, deterministic, no I/O.
        .target(name: "SnapboardCore"),
        // Wire messages, their JSON codec and validation, error and close codes. Pure.
        .target(name: "SnapboardProtocol", dependencies: ["SnapboardCore"]),
        // Access tokens (JWT: HS256, ES256, RS256 through swift-crypto) and the Origin/Host policy. Pure.
        .target(
            name: "SnapboardAuth",
            dependencies: [
                "SnapboardProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // A value behind a pthread lock that ThreadSanitizer can follow (Synchronization.Mutex waits on raw futexes).
        .target(name: "SnapboardLock"),
        // libwebsockets once for server and clients: the context (event loop, service thread, hand-overs,
        // timer, callback trampoline), sockets, frame assembly with a size cap. Touches no room or canvas.
        .target(
            name: "SnapboardLWS",
            dependencies: ["CLibWebSockets", "CSnapboardLWS", "SnapboardProtocol", "SnapboardLock", .product(name: "Logging", package: "swift-log")],
            swiftSettings: unchecked
        ),
        // Ordering, sessions, leases, coalescing, acks, resume: sees only outboxes, takes time as a parameter.
        .target(name: "SnapboardRoom", dependencies: ["SnapboardCore", "SnapboardProtocol", "SnapboardLock", .product(name: "DequeModule", package: "swift-collections")], swiftSettings: unchecked),
        // Canvases at rest: the store interface, in memory and in SQLite (GRDB), and the journal thread.
        // GRDBSQLite: the SQLite C API, for reading the op log's rows in place (SQLiteCanvasStore+Log.swift).
        .target(
            name: "SnapboardStore",
            dependencies: ["SnapboardCore", "SnapboardLock", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        // Canvases in PostgreSQL for a cluster: one fenced owner per canvas, node leases, a blocking libpq
        // connection on the caller's (journal's) thread. The server sees only SnapboardStore's protocols.
        .target(
            name: "SnapboardPostgres",
            dependencies: ["SnapboardStore", "SnapboardCore", "SnapboardLock", "CLibPQ", .product(name: "Logging", package: "swift-log")]
        ),
        // The browser client as resources: lib/ (the JavaScript library, lib/index.js its entry) and page/
        // (start page and whiteboard), and WebAssets, which reads both once and answers their paths.
        .target(name: "SnapboardWeb", dependencies: ["SnapboardCore", "SnapboardProtocol"], resources: [.copy("lib"), .copy("page")]),
        // A canvas drawn as SVG (pure) and as PNG (through cairo), for the export endpoint. No I/O.
        .target(name: "SnapboardRender", dependencies: ["SnapboardCore", "CLibCairo"]),
        // The libwebsockets service thread, the C callback bridge, HTTP endpoints and metrics.
        .target(
            name: "SnapboardServer",
            dependencies: [
                "CLibWebSockets", "CSnapboardLWS", "SnapboardLWS", "SnapboardRoom", "SnapboardStore", "SnapboardAuth", "SnapboardLock", "SnapboardWeb", "SnapboardRender",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: unchecked
        ),
        // The client's replica, pending ops and reconnect policy: no libwebsockets, usable from an Apple app.
        .target(name: "SnapboardClient", dependencies: ["SnapboardCore", "SnapboardProtocol"]),
        // The libwebsockets client transport shared by the terminal client, the load tool and the tests.
        .target(
            name: "SnapboardLWSClient",
            dependencies: ["CLibWebSockets", "CSnapboardLWS", "SnapboardLWS", "SnapboardClient", "SnapboardLock", .product(name: "DequeModule", package: "swift-collections")]
        ),
        // The load tool's parts that need no socket: plans, gestures, op tags, convergence and the report,
        // and another process's CPU and memory read from /proc.
        .target(
            name: "SnapboardLoad",
            dependencies: ["SnapboardCore", "SnapboardProtocol", .product(name: "Histogram", package: "hdrhistogram-swift")]
        ),
        // The load tool's own ws:// client transport: one epoll loop, frames read in blocks. Not libwebsockets,
        // whose 4.1 client reads frames a byte at a time; only the load tool and its tests link it.
        .target(
            name: "SnapboardRawWebSocket",
            dependencies: ["CSnapboardEpoll", "SnapboardLock", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: unchecked
        ),
        // Many connections on one event loop, dragging on an open-loop schedule.
        .executableTarget(
            name: "snapboard-load",
            dependencies: [
                "SnapboardLoad", "SnapboardClient", "SnapboardLWSClient", "SnapboardRawWebSocket",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: unchecked
        ),
        .executableTarget(
            name: "snapboard-client",
            dependencies: ["SnapboardClient", "SnapboardLWSClient", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "snapboard-server",
            dependencies: [
                "SnapboardServer",
                "SnapboardStore",
                "SnapboardPostgres",
                "SnapboardAuth",
                "SnapboardLWS",
                "SnapboardLWSClient",
                "SnapboardTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "snapboard-engine",
            dependencies: ["SnapboardCore", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // make bench: the snapping micro-benchmark (W5), the storage benchmarks (commit latency on SQLite and on
        // a PostgreSQL it starts), loading and resuming a room.
        .executableTarget(
            name: "snapboard-bench",
            dependencies: [
                "SnapboardCore", "SnapboardStore", "SnapboardRoom", "SnapboardProtocol", "SnapboardLock", "SnapboardLWS", "SnapboardLoad",
                "SnapboardPostgres", "SnapboardTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // The test harness, for this package's tests and the server's hidden test flags: the server as a
        // process (`ServerProcess`), a protocol-level client, raw sockets and HTTP, the replica a client
        // builds, a store that fails on demand, and the conformance suite's echo server. No test framework,
        // so a binary that links it needs nothing beyond the toolchain's runtime.
        .target(
            name: "SnapboardTesting",
            dependencies: ["CLibWebSockets", "SnapboardCore", "SnapboardProtocol", "SnapboardStore", "SnapboardLWS", "SnapboardLWSClient", "SnapboardLoad"]
        ),
        // make fuzz: decoding and a room applying what it decoded, import bodies and stored rows loaded, under libFuzzer.
        .target(name: "SnapboardFuzz", dependencies: ["SnapboardCore", "SnapboardProtocol", "SnapboardRoom", "SnapboardStore"]),
        .executableTarget(name: "snapboard-fuzz", dependencies: ["SnapboardFuzz"]),
        .testTarget(name: "SnapboardProtocolTests", dependencies: ["SnapboardProtocol"]),
        .testTarget(name: "SnapboardFuzzTests", dependencies: ["SnapboardFuzz"]),
        .testTarget(
            name: "SnapboardAuthTests",
            dependencies: ["SnapboardAuth", .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto")]
        ),
        .testTarget(name: "SnapboardLockTests", dependencies: ["SnapboardLock"]),
        // The client transport against the harness's echo server, in process, over loopback.
        .testTarget(name: "SnapboardLWSClientTests", dependencies: ["SnapboardLWSClient", "SnapboardLWS", "SnapboardLock", "SnapboardTesting"]),
        .testTarget(name: "SnapboardRoomTests", dependencies: ["SnapboardRoom"]),
        .testTarget(name: "SnapboardStoreTests", dependencies: ["SnapboardStore"]),
        // The storage contract suite, run against memory, SQLite and a real PostgreSQL, and the cluster
        // store's ownership and commit-outcome tests. A target of its own rather than SnapboardStoreTests:
        // those stay free of libpq and of a database server, so the codec and range tests run anywhere.
        .testTarget(name: "SnapboardPostgresTests", dependencies: ["SnapboardPostgres", "SnapboardStore", "SnapboardCore", "SnapboardTesting"]),
        .testTarget(name: "SnapboardClientTests", dependencies: ["SnapboardClient"]),
        // The terminal client's pure parts, with no terminal and no server: the raster's text layout and lines,
        // the text editor's keys and lease clock. Its view is tested in tmux, end to end.
        .testTarget(name: "SnapboardTerminalTests", dependencies: ["snapboard-client"]),
        .testTarget(name: "SnapboardLWSTests", dependencies: ["SnapboardLWS"]),
        .testTarget(name: "SnapboardWebTests", dependencies: ["SnapboardWeb"]),
        .testTarget(name: "SnapboardRenderTests", dependencies: ["SnapboardRender", "CLibCairo"]),
        // The server's parts that need no socket: the room registry against a fake journal.
        .testTarget(name: "SnapboardServerTests", dependencies: ["SnapboardServer"]),
        .testTarget(
            name: "SnapboardLoadTests",
            dependencies: ["SnapboardLoad", "SnapboardRawWebSocket", .product(name: "Histogram", package: "hdrhistogram-swift")]
        ),
        // End-to-end: starts the real snapboard-server process and talks to it over real sockets (and, for the
        // database's fail-over, drives the PostgreSQL store against a real Patroni cluster).
        .testTarget(
            name: "SnapboardEndToEndTests",
            dependencies: ["SnapboardTesting", "SnapboardLWSClient", "SnapboardClient", "SnapboardProtocol", "SnapboardAuth", "SnapboardLoad",
                           "SnapboardLock", "SnapboardServer", "SnapboardStore", "SnapboardPostgres"]
        ),
        .testTarget(
            name: "SnapboardCoreTests",
            dependencies: [
                "SnapboardCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
