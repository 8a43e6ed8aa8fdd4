// swift-tools-version: 6.1
// RegistryClientCheck: a client of the registry's HTTP API generated from
// schemas/openapi.json by swift-openapi-generator's build plugin, as a team
// adopting the API would make one.  scripts/check-openapi.sh builds it (the
// build fails when the generator refuses the document) and runs it against a
// live `sdui serve`.
import PackageDescription

let package = Package(
    name: "RegistryClientCheck",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "RegistryClientCheck",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
    ]
)
