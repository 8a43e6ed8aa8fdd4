// swift-tools-version: 6.1
// SDUIKit: a server-driven UI engine with a C core (csrc/, include/) and
// thin Swift modules.  Benchmarks live under bench/, outside the library's
// dependency graph: only the `sdui-server` command links them.
//
// The package trait "Server" brings in the server stack (Hummingbird,
// PostgresNIO, sqlite-nio, swift-prometheus, ServiceLifecycle, NIO and the
// argument parser) for SDUIServer, the `sdui` command and their tests.  It is
// off by default, so an app that depends on the SDUI product resolves, fetches
// and builds only the client's three packages and their own dependencies; a
// service opts in:
//
//     .package(url: "...", from: "0.2.0", traits: ["Server"])
//
// This repository's scripts build with `--traits Server`.  Without it the
// server-side sources compile to nothing (`#if Server`) and `sdui` only says
// how to build it.
import PackageDescription

/// A dependency of a server-side target: resolved only with the trait on.
func server(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["Server"]))
}

let package = Package(
    name: "SDUIKit",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "SDUI", targets: ["SDUI"]),
        .library(name: "SDUIStore", targets: ["SDUIStore"]),
        .library(name: "SDUIFlow", targets: ["SDUIFlow"]),
        .library(name: "SDUIServer", targets: ["SDUIServer"]),
        .library(name: "SDUIRegistryKit", targets: ["SDUIRegistryKit"]),
        .executable(name: "sdui", targets: ["sdui"]),
        .executable(name: "sdui-server", targets: ["sdui-server"]),
    ],
    traits: [
        .trait(
            name: "Server",
            description: "The registry server (SDUIServer), the sdui command and their stack."
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // 3.x and 4.x: the signing, hashing and HMAC the code uses are in both.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Counter, Gauge and Timer with an explicit factory (init(label:dimensions:factory:)): 2.7.0.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.7.0"),
        // The registry server (SDUIServer), and the loopback registry of the client tests.
        // HTTP1Channel.Configuration(idleTimeout:): 2.4.0.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.4.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        // Server only: its two registry stores and its /metrics.
        // PostgresClient.withTransaction and PostgresTransactionError: 1.25.0.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.25.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.10.0"),
        // emitToBuffer() and help text through MetricNameDescriptor: 2.2.0.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.2.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // cancelWhenGracefulShutdown: 2.5.0.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        // `sdui dev`'s WebSocket (SDUIPlayground), and its tests' client.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.6.0"),
        // `swift package generate-documentation`: the DocC catalogs under Sources/*/*.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The C core's two libraries (libdeflate, sqlite3) and jansson, the
        // benchmark's peer parser, found with pkg-config; the providers name
        // the package that installs each.  SQLite is part of Apple's SDKs.
        .systemLibrary(
            name: "CJansson",
            path: "Sources/System/CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"]), .brew(["jansson"])]
        ),
        .systemLibrary(
            name: "CLibDeflate",
            path: "Sources/System/CLibDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]
        ),
        .systemLibrary(
            name: "CSQLite3",
            path: "Sources/System/CSQLite3",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The C core.  Also builds on its own with the Makefile.
        .target(
            name: "CSDUI",
            dependencies: ["CLibDeflate", "CSQLite3"],
            path: ".",
            sources: ["csrc"],
            publicHeadersPath: "include",
            linkerSettings: [
                .linkedLibrary("pthread", .when(platforms: [.linux])),
                .linkedLibrary("m", .when(platforms: [.linux])),   // expr_eval.c, expr_fn.c: floor, round, fmod
            ]
        ),
        // The ground floor of the client modules: JSON values, errors, HTTP.
        .target(
            name: "SDUICore",
            dependencies: ["CSDUI"],
            path: "Sources/SDUICore"
        ),
        // Scenario data: the store of each scope, its observers, validation
        // and live expressions.  Knows nothing of tokens or render.
        .target(
            name: "SDUIStore",
            dependencies: [
                "SDUICore", "CSDUI",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/SDUIStore"
        ),
        .target(
            name: "SDUI",
            dependencies: [
                "SDUICore",
                "CSDUI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Sources/SDUI"
        ),
        // Flows, and the screen state machine and normalized
        // payload: above both SDUI and SDUIStore, which know
        // nothing of each other.
        .target(
            name: "SDUIFlow",
            dependencies: [
                "SDUI", "SDUIStore", "SDUICore", "CSDUI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/SDUIFlow"
        ),
        // The registry side below the server: stored records, the error type,
        // the token signer and pack building.  No server framework, so the pack
        // tools link it without NIO.
        .target(
            name: "SDUIRegistryKit",
            dependencies: [
                "SDUI", "SDUICore", "CSDUI",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/SDUIRegistryKit"
        ),
        // The registry server library: what a Swift service links.  Server-only
        // dependencies stay here, out of the client library SDUI.
        .target(
            name: "SDUIServer",
            dependencies: [
                "SDUI",
                "SDUIFlow",
                "SDUIRegistryKit",
                server("Hummingbird", "hummingbird"),
                server("HummingbirdCore", "hummingbird"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOHTTPTypesHTTP1", "swift-nio-extras"),
                server("PostgresNIO", "postgres-nio"),
                server("SQLiteNIO", "sqlite-nio"),
                server("Prometheus", "swift-prometheus"),
                server("Metrics", "swift-metrics"),
                server("HTTPTypes", "swift-http-types"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("UnixSignals", "swift-service-lifecycle"),
                server("NIOSSL", "swift-nio-ssl"),
                server("NIOHTTPTypes", "swift-nio-extras"),
                server("Logging", "swift-log"),
            ],
            path: "Sources/SDUIServer"
        ),
        // `sdui dev`: the playground's server, its folder watcher and its
        // page; the runtime an app runs drives it (SDUIFlow's sessions).
        .target(
            name: "SDUIPlayground",
            dependencies: [
                "SDUI", "SDUICore", "SDUIFlow", "SDUIStore",
                server("Hummingbird", "hummingbird"),
                server("HummingbirdWebSocket", "hummingbird-websocket"),
                server("HTTPTypes", "swift-http-types"),
                server("NIOCore", "swift-nio"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("Logging", "swift-log"),
            ],
            path: "Sources/SDUIPlayground"
        ),
        // libcurl for the two executables, opened on their first request
        // instead of at start (Sources/CurlLoader/curl_loader.c).
        .target(
            name: "CurlLoader",
            path: "Sources/CurlLoader",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // The client commands (render, expr, theme, token, flow, screen) and
        // what every command shares: output, errors, the runner.  Linked by
        // both executables; no server framework.
        .target(
            name: "SDUICLI",
            dependencies: [
                "SDUI", "SDUICore", "SDUIStore", "SDUIFlow", "SDUIRegistryKit",
                .product(name: "Logging", package: "swift-log"),
                server("ArgumentParser", "swift-argument-parser"),
            ],
            path: "Sources/SDUICLI"
        ),
        // `sdui`, the client front: runs the client commands in a binary
        // without the server stack, so it starts fast; hands every other
        // command line to `sdui-server` beside it.
        .executableTarget(
            name: "sdui",
            dependencies: [
                "CurlLoader",
                "SDUI",
                "SDUICLI",
                server("ArgumentParser", "swift-argument-parser"),
            ],
            path: "Sources/sdui"
        ),
        // `sdui-server`: the whole command set, the registry server, its
        // tools and the benchmarks included.
        .executableTarget(
            name: "sdui-server",
            dependencies: [
                "CurlLoader",
                "SDUI",
                "SDUICLI",
                "SDUIStore",
                "SDUIFlow",
                "SDUIServer",
                "SDUIRegistryKit",
                "SDUIPlayground",
                "SDUIBench",
                server("ArgumentParser", "swift-argument-parser"),
                server("Hummingbird", "hummingbird"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
            ],
            path: "Sources/sdui-server"
        ),
        // `sdui bench start-up`'s floors: a command line of `sdui render`'s
        // shape (FloorShape) parsed by the argument parser alone, and by a
        // program that also links Foundation and FoundationNetworking as
        // every `sdui` command does.
        .target(
            name: "FloorShape",
            dependencies: [server("ArgumentParser", "swift-argument-parser")],
            path: "bench/Sources/FloorShape"
        ),
        .executableTarget(
            name: "sdui-parser-floor",
            dependencies: ["FloorShape"],
            path: "bench/Sources/ParserFloor"
        ),
        .executableTarget(
            name: "sdui-stack-floor",
            dependencies: ["FloorShape", "CurlLoader"],
            path: "bench/Sources/StackFloor"
        ),
        // Benchmarks and their C peers (zlib and libdeflate inflate, jansson DOM parse).
        .target(
            name: "CSDUIBenchPeers",
            dependencies: ["CZlib", "CJansson", "CLibDeflate", "CSQLite3"],
            path: "bench/Sources/CSDUIBenchPeers"
        ),
        // The simdjson peer (Debian's libsimdjson-dev, C++17) behind a C
        // header: the benchmark's only, never linked by a library target.
        .target(
            name: "CSDUIBenchSimdjson",
            path: "bench/Sources/CSDUIBenchSimdjson",
            cxxSettings: [.define("SIMDJSON_THREADS_ENABLED", to: "1")],   // as simdjson.pc says
            linkerSettings: [.linkedLibrary("simdjson")]
        ),
        .systemLibrary(
            name: "CZlib",
            path: "bench/Sources/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .target(
            name: "SDUIBench",
            dependencies: ["SDUI", "SDUIStore", "SDUIFlow", "SDUIServer", "SDUIRegistryKit", "CSDUIBenchPeers",
                           "CSDUIBenchSimdjson", "CSDUI"],
            path: "bench/Sources/SDUIBench"
        ),
        // Fixtures shared by the test suites.
        .target(
            name: "SDUITestSupport",
            dependencies: [
                "SDUI", "SDUIRegistryKit", "CSDUI",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/SDUITestSupport"
        ),
        .testTarget(
            name: "SDUICoreTests",
            dependencies: ["SDUICore", "CSDUI", "SDUITestSupport"],
            path: "Tests/SDUICoreTests"
        ),
        .testTarget(
            name: "SDUIStoreTests",
            dependencies: ["SDUIStore", "SDUICore", "SDUITestSupport",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            path: "Tests/SDUIStoreTests"
        ),
        .testTarget(
            name: "SDUITests",
            dependencies: [
                "SDUI", "SDUIRegistryKit", "SDUITestSupport", "CSDUI",
                "SDUICLI",   // HeadlessBrowser, the preview's layout tests' browser
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            path: "Tests/SDUITests"
        ),
        .testTarget(
            name: "SDUIFlowTests",
            dependencies: [
                "SDUIFlow", "SDUI", "SDUIStore", "SDUICore", "CSDUI", "SDUITestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/SDUIFlowTests"
        ),
        .testTarget(
            name: "SDUIRegistryKitTests",
            dependencies: ["SDUIRegistryKit", "SDUI", "SDUITestSupport"],
            path: "Tests/SDUIRegistryKitTests"
        ),
        .testTarget(
            name: "SDUIServerTests",
            dependencies: [
                "SDUIServer", "SDUI", "SDUITestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            path: "Tests/SDUIServerTests"
        ),
        // Runs the built `sdui` binary as a user would.
        .testTarget(
            name: "sduiTests",
            dependencies: ["sdui", "sdui-server", "SDUIRegistryKit", "SDUIFlow", "SDUIServer", "SDUITestSupport"],
            path: "Tests/sduiTests"
        ),
        .testTarget(
            name: "SDUIPlaygroundTests",
            dependencies: [
                "SDUIPlayground", "SDUI", "SDUICore", "SDUIFlow", "SDUITestSupport",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/SDUIPlaygroundTests"
        ),
    ]
)
