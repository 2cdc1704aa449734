// swift-tools-version: 6.1
import PackageDescription

// The peer the benches measure the service against: the status read and the durable write done
// the way a Swift user would, with Hummingbird and GRDB. A separate package that the root package
// never references, so none of it is linked into the product.
let package = Package(
    name: "permission-peer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "permission-peer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ]
)
