import Foundation
import HTTPCore
import Logging
import PermissionAPI
import PermissionDomain
import PermissionWire
import PostgresStore
import PostgresTestServer
import SQLiteStore
import StoreTestSupport
import TestSupport

/// The in-process tier (STYLE 14): the application's responder called directly with
/// `HTTPRequest` values, over a temp-file SQLite store and a manual clock.
///
/// With `PERMISSION_TEST_STORE=postgres` the same suite runs on ``PostgresPermissionStore``
/// instead, each TestApp in a fresh database of the PostgreSQL the tests start
/// (``PostgresServer/shared``). The few tests that reach into SQLite itself are skipped there
/// with a reason (``TestApp/onSQLite``).
final class TestApp: @unchecked Sendable {
    static let start = Date(millisecondsSince1970: 1_795_000_000_000)

    /// Whether this run is on SQLite (the default) rather than PostgreSQL.
    static let onSQLite = ProcessInfo.processInfo.environment["PERMISSION_TEST_STORE"] != "postgres"

    /// Pooled connections per PostgreSQL TestApp: few, since many TestApps live at once.
    static let postgresPoolSize = 3

    let directory: TemporaryDirectory
    let store: any PermissionStore
    /// The SQLite store, nil on PostgreSQL.
    let sqliteStore: SQLitePermissionStore?
    /// The PostgreSQL store, nil on SQLite.
    let postgresStore: PostgresPermissionStore?
    /// The PostgreSQL database's connection string, nil on SQLite.
    let postgresConnectionString: String?
    let clock: ManualClock
    let application: PermissionApplication
    let configuration: APIConfiguration
    /// Set to make `/readyz` fail.
    let notReady = Flag()
    /// The secret of an admin key, sent by `send` unless the request has its own
    /// `Authorization` field (SPEC §6).
    private(set) var adminKey = ""
    /// Its id.
    private(set) var adminKeyId = ""
    private let lock = NSLock()
    private var counter = 0

    /// - Parameters:
    ///   - followInterval: on PostgreSQL, how often the replica reads the change log by itself
    ///     (a long one leaves what other replicas write to a test to make visible).
    ///   - serving: what the application is given of the store (a decorator that counts its
    ///     calls, say); the store itself by default.
    init(
        database: DatabaseConfiguration = .init(), followInterval: Duration = .milliseconds(100),
        _ adjust: (inout APIConfiguration) -> Void = { _ in },
        serving: (any PermissionStore) -> any PermissionStore = { $0 }
    ) throws {
        directory = try TemporaryDirectory()
        let checkReady: @Sendable () throws -> Void
        if Self.onSQLite {
            let sqlite = try SQLitePermissionStore.open(
                path: directory.file("permissions.sqlite"), configuration: database, keyring: .forTests)
            sqliteStore = sqlite
            postgresStore = nil
            postgresConnectionString = nil
            store = sqlite
            checkReady = { try sqlite.checkReady() }
        } else {
            let connectionString = try PostgresServer.shared.get().freshDatabase()
            // As `serve` opens it: reads from the read model, the change log followed.
            let postgres = try PostgresPermissionStore.open(
                connectionString: connectionString, keyring: .forTests, poolSize: Self.postgresPoolSize,
                readModel: .init(cacheEntries: 10_000, followInterval: followInterval))
            postgresStore = postgres
            sqliteStore = nil
            postgresConnectionString = connectionString
            store = postgres
            checkReady = { try postgres.checkReady() }
        }
        clock = ManualClock(Self.start)
        var configuration = APIConfiguration()
        adjust(&configuration)
        self.configuration = configuration
        let store = store
        let notReady = notReady
        application = PermissionAPI.buildApplication(
            configuration: configuration, store: serving(store), clock: clock,
            readiness: {
                if notReady.isSet { throw TestFailure("disk on fire") }
                try checkReady()
            },
            logger: quietLogger)
        // Stored directly (no audit entry), so that tests see the audit log of their own calls.
        let (id, secret) = try storeKey(role: .admin)
        adminKey = secret
        adminKeyId = id.rawValue
    }

    /// The connections open snapshots hold now (`PermissionStore.openSnapshot`, an export in
    /// flight): the SQLite store's snapshot connections, the PostgreSQL store's pooled
    /// connections (which nothing else holds between requests).
    var snapshotConnectionsInUse: Int {
        sqliteStore?.snapshotConnectionsInUse ?? postgresStore?.connectionsInUse ?? -1
    }

    /// Runs `sql` on the PostgreSQL database behind the store's back (as an attacker with
    /// database access would); only on PostgreSQL.
    func executeOnPostgres(_ sql: String) throws {
        guard let postgresConnectionString else { throw TestFailure("not on PostgreSQL") }
        try PostgresConnection(postgresConnectionString).execute(sql)
    }

    /// Stores a key of `role` (bound to `app`) without an audit entry; returns its id and secret.
    @discardableResult
    func storeKey(role: Role, app: String? = nil, revoked: Bool = false) throws -> (id: KeyID, secret: String) {
        let (id, secret) = KeyBootstrap.generate()
        let key = try APIKey(
            id: id, role: role, app: try app.map { try AppID($0) }, name: "test \(role.rawValue)",
            secretHash: KeyBootstrap.hash(secret), createdAt: Self.start, revokedAt: revoked ? Self.start : nil)
        try store.write { try $0.save(key) }
        return (id, secret)
    }

    deinit {
        postgresStore?.close()  // its follower's thread and connection
    }

    /// Sends one request through the responder (stream bodies are run to the end). A field of
    /// `headers` replaces the default one of its name (the admin key's `Authorization`); a name
    /// `headers` gives twice is sent twice.
    @discardableResult
    func send(
        _ method: HTTPMethod, _ target: String, json: String? = nil, body: [UInt8]? = nil,
        headers: [(String, String)] = [], remote: String = "127.0.0.1:1", connection: ConnectionStorage? = nil
    ) throws -> TestResponse {
        let response = try respond(
            method, target, json: json, body: body, headers: headers, remote: remote, connection: connection)
        switch response.body {
        case .bytes(let body):
            return TestResponse(status: response.status.code, headers: response.headers, body: body)
        case .stream(let produce):
            let collector = CollectingWriter()
            try produce(collector)
            return TestResponse(status: response.status.code, headers: response.headers, body: collector.bytes)
        case .deferred:
            throw TestFailure("a deferred response completed with another")
        }
    }

    /// The response to one request as the engine gets it, a streamed body not run yet (what it
    /// holds, such as a read snapshot, is held until the response is released); `send`'s
    /// parameters.
    func respond(
        _ method: HTTPMethod, _ target: String, json: String? = nil, body: [UInt8]? = nil,
        headers: [(String, String)] = [], remote: String = "127.0.0.1:1", connection: ConnectionStorage? = nil
    ) throws -> HTTPResponse {
        let id = lock.withLock { () -> Int in
            counter += 1
            return counter
        }
        var fields = HTTPHeaders([("Host", "test")])
        let bytes = body ?? json.map { Array($0.utf8) } ?? []
        if json != nil { fields.add(name: "Content-Type", value: "application/json") }
        if !headers.contains(where: { $0.0.lowercased() == "authorization" }) {
            fields.add(name: "Authorization", value: "Bearer \(adminKey)")
        }
        var named = Set<String>()
        for (name, value) in headers where !value.isEmpty {
            if named.insert(name.lowercased()).inserted {
                fields.replaceOrAdd(name: name, value: value)
            } else {
                fields.add(name: name, value: value)
            }
        }
        if !bytes.isEmpty { fields.add(name: "Content-Length", value: String(bytes.count)) }
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let head = HTTPRequestHead(
            method: method, target: target, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : nil,
            version: .http1_1, headers: fields, authority: "test", keepAlive: true,
            framing: bytes.isEmpty ? .none : .contentLength(bytes.count), expectContinue: false)
        var context = RequestContext(requestId: "test-\(id)", logger: quietLogger, remoteAddress: remote)
        context.connection = connection  // what a keep-alive connection keeps between requests
        // As the engine answers: `prepare` (the route match, before any middleware), then `respond`.
        _ = application.responder.prepare(head, context: &context)
        var response = try application.responder.respond(to: HTTPRequest(head: head, body: bytes), context: context)
        if let deferred = response.deferred { response = try deferred.waitForOutcome().get() }  // as the engine waits
        return response
    }

    /// The seq of the last audit entry.
    func lastSeq() throws -> Int64 { try application.service.lastAuditSeq() }

    /// `PUT /v1/apps/{app}` with `registration`.
    func put(_ registration: AppRegistration, as app: String = "com.example.maps") throws -> TestResponse {
        try send(.put, "/v1/apps/\(app)", json: String(decoding: try WireEncoder.encode(registration), as: UTF8.self))
    }

    /// Registers `app` with `purposeStrings` (Info.plist key → text).
    func registerApp(_ app: String = "com.example.maps", _ purposeStrings: [String: String] = TestApp.allPurposes) throws {
        let response = try put(AppRegistration(name: "Maps", purposeStrings: purposeStrings), as: app)
        guard response.status == 200 || response.status == 201 else { throw TestFailure("register app: \(response.text)") }
    }

    /// A purpose string for every key of the built-in catalogue.
    static let allPurposes: [String: String] = {
        var purposes: [String: String] = [:]
        for service in Catalogue.builtins {
            for keys in service.purposeKeys { for key in keys { purposes[key] = "Purpose for \(key)." } }
        }
        return purposes
    }()
}

/// A response as the test reads it.
struct TestResponse {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try WireDecoder.decodeResponse(type, from: body) }

    /// The problem body, when this is one (nil otherwise, which the expectations then report).
    var problem: Problem? {
        guard headers["Content-Type"] == "application/problem+json" else { return nil }
        switch Result(catching: { try WireDecoder.decodeResponse(Problem.self, from: body) }) {
        case .success(let problem): return problem
        case .failure: return nil
        }
    }

    var problemType: ProblemType? { problem?.problemType }
}

/// Collects a streamed body.
final class CollectingWriter: HTTPBodyWriter {
    var bytes: [UInt8] = []
    var flushes = 0
    func write(_ bytes: [UInt8]) throws { self.bytes.append(contentsOf: bytes) }
    func flush() throws { flushes += 1 }
}

/// A thread-safe boolean.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set(_ newValue: Bool) { lock.withLock { value = newValue } }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let quietLogger: Logger = {
    var logger = Logger(label: "test.api", factory: { _ in SwiftLogNoOpLogHandler() })
    logger.logLevel = .critical
    return logger
}()

extension TestApp {
    /// PostgreSQL only (nil on SQLite): stops this replica following the log and opens another
    /// replica's store on the same database, for changes this one has not applied.
    func otherReplicaWhileThisOneStopsFollowing() throws -> PostgresPermissionStore? {
        guard let store = postgresStore, let connectionString = postgresConnectionString else { return nil }
        store.close()  // this replica no longer follows the log
        return try PostgresPermissionStore.open(connectionString: connectionString, keyring: .forTests, poolSize: 1)
    }
}
