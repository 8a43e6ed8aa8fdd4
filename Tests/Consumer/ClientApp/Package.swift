// swift-tools-version: 6.1
// ClientApp: the manifest of an app that depends on SDUIKit's client library
// only.  scripts/check-consumer.sh resolves and builds it and fails when the
// server stack (Hummingbird, NIO, PostgresNIO, ...) is fetched or built.
import PackageDescription

let package = Package(
    name: "ClientApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        // A release would be `.package(url: "...", from: "0.2.0")`.
        .package(name: "SDUIKit", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "ClientApp",
            dependencies: [.product(name: "SDUI", package: "SDUIKit")]
        ),
    ]
)
