// swift-tools-version: 6.1
import PackageDescription

// A separate package so the bench server never becomes a product target of the service.
// The root package is referenced by path; its identity is the directory name of the checkout,
// which bench/http-engine.sh passes in as HTTPCORE_PACKAGE_ID (default "main").
let rootIdentity = Context.environment["HTTPCORE_PACKAGE_ID"] ?? "main"

let package = Package(
    name: "http-bench",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "http-bench-server",
            dependencies: [
                .product(name: "HTTPCore", package: rootIdentity),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        )
    ]
)
