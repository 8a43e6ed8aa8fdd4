// swift-tools-version: 6.1
// registry-host: a Swift service of its own that serves an SDUIKit registry
// next to its own routes.  It depends on SDUIKit as any service does, with the
// package trait "Server" (a release would be `.package(url: "...", from:
// "0.2.0", traits: ["Server"])`; here it is the checkout two folders up).
import PackageDescription

let package = Package(
    name: "registry-host",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "SDUIKit", path: "../..", traits: ["Server"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "RegistryHost",
            dependencies: [
                .product(name: "SDUIServer", package: "SDUIKit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
