// swift-tools-version: 6.1
import PackageDescription

/// Settings every target shares: Swift 6 language mode plus the two upcoming features
/// that keep existentials explicit and imports internal unless re-exported on purpose.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "permission-service",
    // Linux only (HTTPCore uses epoll(7); Sources/HTTPCore/Server/SupportedPlatform.swift stops a
    // build elsewhere with a clear message): no Apple platform is declared.
    products: [
        .executable(name: "permission-server", targets: ["permission-server"]),
        .executable(name: "permctl", targets: ["permctl"]),
        .library(name: "PermissionClient", targets: ["PermissionClient"]),
        .library(name: "HTTPCore", targets: ["HTTPCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        // System libraries, each imported by exactly one target.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),
        // epoll(7) from <sys/epoll.h> (libc; no library to link), for HTTPCore's event loops.
        .systemLibrary(name: "CEpoll"),

        // Hand-written output: the byte cursor whose reserve is measured from what it writes,
        // and the one JSON string escaper. The one target of ours below HTTPCore and the
        // domain, which otherwise import none: a leaf with no dependency at all (not even
        // Foundation), holding no I/O, no state and no knowledge of HTTP or permissions, so it
        // cannot carry either layer's concerns into the other.
        .target(name: "ByteText", swiftSettings: swiftSettings),
        // The HTTP/1.1 engine: knows nothing about permissions.
        .target(
            name: "HTTPCore",
            dependencies: ["ByteText", "CEpoll", "Ownership", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // Who owns shared mutable state, checked: lock-guarded state reachable only under its
        // lock, state owned by a queue, and debug-build checks that a connection handed between
        // threads has one user at a time. A leaf with no dependencies (Foundation, Dispatch,
        // Synchronization), so any layer, HTTPCore included, may use it without depending on
        // another layer.
        .target(name: "Ownership", swiftSettings: swiftSettings),
        // The permission model: pure values and rules, time from an injected clock.
        .target(name: "PermissionDomain", dependencies: ["ByteText"], swiftSettings: swiftSettings),
        // The audit chain's SHA-256 and the per-user keys that seal personal fields (swift-crypto),
        // shared by both stores.
        .target(
            name: "AuditKeys",
            dependencies: ["PermissionDomain", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // SQLite persistence of the domain.
        .target(
            name: "SQLiteStore",
            dependencies: ["PermissionDomain", "AuditKeys", "StoredRows", "CSQLite", "Ownership"],
            swiftSettings: swiftSettings
        ),
        // What both stores decode the same way: each shape both keep in the same columns (an
        // audit entry, a prompt, a policy, an API key, a consent session), decoded once from a
        // row either store reads.
        .target(name: "StoredRows", dependencies: ["PermissionDomain", "AuditKeys"], swiftSettings: swiftSettings),
        // PostgreSQL persistence of the domain through libpq.
        .target(
            name: "PostgresStore",
            dependencies: ["PermissionDomain", "AuditKeys", "StoredRows", "CLibPQ", "Ownership"],
            swiftSettings: swiftSettings
        ),
        // Wire shapes of openapi.yaml, shared by server and client.
        .target(name: "PermissionWire", dependencies: ["ByteText"], swiftSettings: swiftSettings),
        // Controllers, problem+json, buildApplication. The repository's openapi.yaml is compiled
        // in by the plugin below (served at GET /openapi.yaml from the one static binary).
        .target(
            name: "PermissionAPI",
            dependencies: [
                "HTTPCore", "PermissionDomain", "PermissionWire", "Ownership",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["OpenAPIDocumentPlugin"]
        ),
        // Build time only: openapi.yaml as a Swift source in the build directory.
        .plugin(
            name: "OpenAPIDocumentPlugin", capability: .buildTool(), dependencies: ["OpenAPIDocumentGenerator"]
        ),
        .executableTarget(
            name: "OpenAPIDocumentGenerator", path: "Plugins/OpenAPIDocumentGenerator", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "permission-server",
            dependencies: [
                "PermissionAPI", "SQLiteStore", "PostgresStore", "PermissionDomain", "HTTPCore", "ByteText", "Ownership",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Client SDK on libcurl and the operator CLI; neither links a server target.
        .target(
            name: "PermissionClient", dependencies: ["PermissionWire", "CCurl", "Ownership"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "permctl",
            dependencies: [
                "PermissionClient", "PermissionWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // Test support, under Tests/ so that no product or executable can link it. The pure
        // one (values, a manual clock, temporary directories, threads) needs only the domain;
        // the store one adds the audit keyring; TestProcesses starts child processes
        // (posix_spawn, reaped by PID; a leaf, Foundation only); the live one starts the built
        // server on 127.0.0.1 port 0; PostgresTestServer is a real PostgreSQL started for the
        // test run (initdb into a temporary directory, a Unix socket, stopped by PID).
        .target(
            name: "TestSupport", dependencies: ["PermissionDomain"], path: "Tests/TestSupport",
            swiftSettings: swiftSettings),
        .target(
            name: "StoreTestSupport", dependencies: ["AuditKeys", "PermissionDomain", "StoredRows"],
            path: "Tests/StoreTestSupport", swiftSettings: swiftSettings),
        .target(name: "TestProcesses", path: "Tests/TestProcesses", swiftSettings: swiftSettings),
        .target(
            name: "LiveTestSupport", dependencies: ["TestProcesses"], path: "Tests/LiveTestSupport",
            swiftSettings: swiftSettings),
        // The `.blocksItsThread` trait: a test that blocks its thread runs on threads of its own,
        // off Swift concurrency's shared pool (one thread a core).
        .target(name: "TestThreads", path: "Tests/TestThreads", swiftSettings: swiftSettings),
        .target(
            name: "PostgresTestServer", dependencies: ["PostgresStore", "TestProcesses"], path: "Tests/PostgresTestServer",
            swiftSettings: swiftSettings),

        .testTarget(name: "TestThreadsTests", dependencies: ["TestThreads"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TestProcessesTests", dependencies: ["TestProcesses", "TestThreads"], swiftSettings: swiftSettings),
        .testTarget(name: "OwnershipTests", dependencies: ["Ownership"], swiftSettings: swiftSettings),
        .testTarget(name: "ByteTextTests", dependencies: ["ByteText"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTPCoreTests", dependencies: ["TestThreads", "TestProcesses", "HTTPCore", "Ownership"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PermissionDomainTests", dependencies: ["PermissionDomain", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SQLiteStoreTests",
            dependencies: [
                "TestThreads", "TestProcesses", "SQLiteStore", "AuditKeys", "Ownership", "PermissionDomain", "TestSupport",
                "StoreTestSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: [
                "TestThreads", "TestProcesses",
                "PostgresStore", "PostgresTestServer", "AuditKeys", "Ownership", "PermissionDomain", "StoreTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PermissionAPITests",
            dependencies: [
                "TestThreads", "TestProcesses",
                "PermissionAPI", "SQLiteStore", "PostgresStore", "PostgresTestServer", "AuditKeys", "PermissionDomain",
                "PermissionWire", "HTTPCore", "Ownership", "TestSupport", "StoreTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        // One suite written against `any PermissionStore`, run on SQLite and on PostgreSQL.
        .testTarget(
            name: "StoreConformanceTests",
            dependencies: [
                "TestThreads",
                "PermissionDomain", "AuditKeys", "SQLiteStore", "PostgresStore", "PostgresTestServer", "TestSupport",
                "StoreTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "PermissionWireTests", dependencies: ["PermissionWire"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PermissionClientTests",
            dependencies: ["TestThreads", "TestProcesses", "PermissionClient", "PermissionWire", "LiveTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "TestThreads", "TestProcesses", "PermissionClient", "PermissionWire", "PostgresTestServer", "LiveTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
