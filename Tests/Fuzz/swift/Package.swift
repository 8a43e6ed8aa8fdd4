// swift-tools-version: 6.1
// SDUIPayloadFuzz: a libFuzzer harness, in Swift, for the normalized-payload
// decoder (ScreenModel) and the render of what it decodes.  A package of its
// own, depending on SDUIKit by path, so the library's manifest carries no
// sanitizer flags: Tests/Fuzz/run-swift.sh builds it with
// `-sanitize=fuzzer,address` into .build-fuzz and runs it.
import PackageDescription

let package = Package(
    name: "SDUIPayloadFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "SDUIKit", path: "../../.."),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // Declares libFuzzer's driver entry point for main.swift.
        .target(name: "CFuzzDriver", path: "Sources/CFuzzDriver"),
        .executableTarget(
            name: "FuzzPayload",
            dependencies: [
                "CFuzzDriver",
                .product(name: "SDUIFlow", package: "SDUIKit"),
                .product(name: "SDUI", package: "SDUIKit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/FuzzPayload"
        ),
    ]
)
