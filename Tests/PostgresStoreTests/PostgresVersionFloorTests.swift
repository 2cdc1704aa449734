import Foundation
import PermissionDomain
import PostgresStore
import PostgresTestServer
import StoreTestSupport
import Synchronization
import TestThreads
import Testing

/// Live: the version floor inside one writer batch on PostgreSQL. The batch reads the floor
/// once for the bodies that create records; an erasure among them must make the next one read
/// it again, or a record written after the erasure would start below the versions it deleted.
@Suite struct PostgresVersionFloorTests {
    private struct FixedClock: Clock {
        let now = Date(millisecondsSince1970: 1_795_000_000_000)
    }

    private static let app = AppID(trusted: "com.example.scanner")
    private static let consent = Actor(keyId: "k-consent", role: "consent")

    private final class Outcomes: Sendable {
        private let versions = Mutex<[String: Int64]>([:])
        func record(_ name: String, _ version: Int64) { versions.withLock { $0[name] = version } }
        var all: [String: Int64] { versions.withLock { $0 } }
    }

    private func authorize(_ service: PermissionService, _ user: String, _ status: AuthorizationStatus) throws -> Int64 {
        try service.setAuthorization(
            user: UserID(trusted: user), app: Self.app, service: .camera, status: status,
            level: status == .authorized ? .full : nil, actor: Self.consent, requestId: nil
        ).version
    }

    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aRecordCreatedAfterAnErasureInTheSameBatchStartsAboveIt() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        let service = PermissionService(store: store, clock: FixedClock())
        _ = try service.putApp(
            id: Self.app, name: "Scanner", purposeStrings: ["NSCameraUsageDescription": PurposeString(trusted: "Scan.")],
            actor: .anonymous, requestId: nil)
        for (index, status) in [AuthorizationStatus.authorized, .denied, .authorized, .denied, .authorized].enumerated() {
            #expect(try authorize(service, "erased", status) == Int64(index + 1))
        }

        // Another connection holds the chain head's lock: "first" takes a batch of its own and
        // waits; the next three queue behind it in this order and form the next batch.
        let holder = try PostgresConnection(database)
        try holder.execute("BEGIN; SELECT * FROM audit_head FOR UPDATE")
        let outcomes = Outcomes()
        let failures = Failures()
        let group = DispatchGroup()
        func start(_ name: String, _ body: @escaping @Sendable () throws -> Int64) {
            group.enter()
            Thread {
                defer { group.leave() }
                do { outcomes.record(name, try body()) } catch { failures.add(error) }
            }.start()
        }
        start("first") { try self.authorize(service, "first", .authorized) }
        let deadline = Date().addingTimeInterval(30)
        while store.writer.pendingCount > 0 || store.writer.waitingCount == 0, Date() < deadline { usleep(2_000) }
        let steps: [(String, @Sendable () throws -> Int64)] = [
            ("before", { try self.authorize(service, "before", .authorized) }),
            ("erasure", { try service.eraseUser(UserID(trusted: "erased"), actor: .anonymous, requestId: nil).seq }),
            ("after", { try self.authorize(service, "after", .authorized) }),
        ]
        for (index, (name, body)) in steps.enumerated() {
            start(name, body)
            while store.writer.pendingCount < index + 1, Date() < deadline { usleep(2_000) }
        }
        try holder.rollback()
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(failures.all.isEmpty, "\(failures.all)")

        let versions = outcomes.all
        #expect(versions["first"] == 1 && versions["before"] == 1, "no erasure before them: \(versions)")
        #expect(versions["after"] == 6, "above the erased record's 5, in the same batch: \(versions)")
        #expect(store.writeStatistics.largestBatch == 3)
        #expect(try authorize(service, "later", .authorized) == 6, "and in the batches after it")
    }

    /// A replica of the previous version serves on during a rolling update and knows nothing of
    /// the floor: its erasure deletes records without raising it, and it writes a new record at
    /// version 1. The database's triggers keep the floor for it.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func theDatabaseKeepsTheFloorForAReplicaThatDoesNotKnowIt() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        _ = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)  // migrates
        let connection = try PostgresConnection(database)
        func floor() throws -> Int64 {
            try connection.query(PreparedStatement("SELECT version FROM version_floor WHERE id = 1"))[0].int64(at: 0)
        }
        func insert(_ user: String, version: Int64) throws {
            try connection.execute(
                """
                INSERT INTO authorizations (user_id, app, service, status, provisional, once, reason, declined_levels,
                                            updated_at, version)
                VALUES ('\(user)', 'com.example.scanner', 'camera', 'denied', false, false, 'userSet', '', 0, \(version))
                ON CONFLICT (user_id, app, service) DO UPDATE SET version = excluded.version
                """)
        }
        func version(_ user: String) throws -> Int64 {
            try connection.query(
                PreparedStatement("SELECT version FROM authorizations WHERE user_id = $1"), [.text(user)])[0].int64(at: 0)
        }
        try insert("erased", version: 5)
        try insert("kept", version: 2)
        #expect(try floor() == 0)
        try connection.execute("DELETE FROM authorizations WHERE user_id = 'erased'")
        #expect(try floor() == 5, "raised by the delete itself")
        try insert("erased", version: 1)
        #expect(try version("erased") == 6, "a new record at or below the floor is stored above it")
        try insert("kept", version: 3)
        #expect(try version("kept") == 3, "a stored record goes on from its own version")
        try connection.execute("DELETE FROM authorizations WHERE user_id = 'kept'")
        #expect(try floor() == 5, "a lower delete leaves it")
    }
}
