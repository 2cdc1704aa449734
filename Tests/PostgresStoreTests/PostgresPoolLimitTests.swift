import Foundation
import PermissionDomain
import PostgresTestServer
import StoreTestSupport
import Synchronization
import Testing

@testable import PostgresStore

/// Live: the pool under the server's connection limits, which every client of the database
/// shares (max_connections, a role's or a database's CONNECTION LIMIT; superusers are exempt,
/// so the test connects as a role of its own).
@Suite struct PostgresPoolLimitTests {
    /// A connection string of a fresh database for a role of its own that may hold one
    /// connection at a time (`CONNECTION LIMIT 1`).
    static func limitedRole() throws -> String {
        let server = try PostgresServer.shared.get()
        let conninfo = try server.freshDatabase()
        let database = try #require(conninfo.split(separator: " ").first { $0.hasPrefix("dbname=") }?.dropFirst(7))
        let role = "limited_" + UUID().uuidString.prefix(8).lowercased()
        let admin = try PostgresConnection(conninfo)
        try admin.execute("CREATE ROLE \(role) LOGIN PASSWORD 'limited-pw' CONNECTION LIMIT 1")
        try admin.execute("GRANT ALL ON DATABASE \(database) TO \(role)")
        return "host=\(server.directory) port=\(server.port) user=\(role) dbname=\(database) password=limited-pw"
    }

    @Test func aConnectionTheServerRefusesWhileOthersAreOutWaitsForOneOfThem() throws {
        let limited = try Self.limitedRole()

        let pool = PostgresConnectionPool(conninfo: limited, capacity: 4, checkoutTimeout: 10, setUp: "")
        // A connection is lent to one thread: another thread takes the first and gives it back
        // half a second later.
        let out = DispatchSemaphore(value: 0)
        let hold = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let firstIdentity = Mutex<ObjectIdentifier?>(nil)
        Thread.detachNewThread {
            guard let first = try? pool.checkout() else {
                out.signal()
                return
            }
            firstIdentity.withLock { $0 = ObjectIdentifier(first) }
            out.signal()
            // Held for half a second from when the second checkout starts.
            _ = hold.wait(timeout: .now() + 30)
            Thread.sleep(forTimeInterval: 0.5)
            pool.checkin(first)
            released.signal()
        }
        #expect(out.wait(timeout: .now() + 10) == .success)
        let first = try #require(firstIdentity.withLock { $0 }, "the first checkout")
        // A second connection of the role is refused by the server: without a connection of
        // the pool out, that refusal is the answer.
        let alone = PostgresConnectionPool(conninfo: limited, capacity: 4, checkoutTimeout: 10, setUp: "")
        let refused = #expect(throws: PostgresError.self) { try alone.checkout() }
        #expect(refused?.message.contains("too many connections") == true, "\(String(describing: refused))")

        // With one out, the checkout waits for it instead, and gets it once it is back.
        let started = ContinuousClock.now
        hold.signal()
        let second = try pool.checkout()
        #expect(ContinuousClock.now - started >= .milliseconds(300), "it waited for the first")
        #expect(ObjectIdentifier(second) == first, "the connection that came back")
        #expect(released.wait(timeout: .now() + 10) == .success)
        pool.checkin(second)
        #expect(pool.openConnections == 1)
    }

    @Test func aRefusalWithNoneOutIsImmediateAndOneThatOutlastsTheTimeoutStands() throws {
        let limited = try Self.limitedRole()
        let pool = PostgresConnectionPool(conninfo: limited, capacity: 4, checkoutTimeout: 0.5, setUp: "")
        let held = try pool.checkout()
        defer { pool.checkin(held) }
        let started = ContinuousClock.now
        let refused = #expect(throws: PostgresError.self) { try pool.checkout() }
        #expect(refused?.message.contains("too many connections") == true, "\(String(describing: refused))")
        #expect(ContinuousClock.now - started < .seconds(5), "bounded by the checkout timeout")
        #expect(pool.openConnections == 1)
    }
}

/// Live: the pool after the server ended every connection it had (a restart, an operator's
/// `pg_terminate_backend`): the first call that meets a broken connection drops the idle ones
/// with it, so that the store's one retry opens a new connection rather than meeting the next
/// broken one.
@Suite struct PostgresPoolBrokenConnectionTests {
    @Test func aBrokenConnectionTakesTheIdleOnesWithItAndAReadSucceedsOnItsRetry() throws {
        let server = try PostgresServer.shared.get()
        let conninfo = try server.freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: conninfo, keyring: .forTests, poolSize: 4)
        // Three connections open and idle.
        let held = try (0..<3).map { _ in try store.pool.checkout() }
        for connection in held { try connection.execute("SELECT 1") }
        held.forEach { store.pool.checkin($0) }
        #expect(store.pool.openConnections == 3)

        let admin = try PostgresConnection(conninfo)
        try admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        usleep(200_000)  // the backends end
        // One retry only: with the idle broken ones left, it would meet the next of them.
        #expect(try store.read { try $0.lastAuditSeq() } >= 0)
        #expect(store.pool.openConnections == 1, "the broken ones are gone; the retry's is open")
    }
}

/// Live: exports never hold the pool's last connection. With a pool of one, an export is
/// refused at once (503) and writes go on; with two, one export holds one and writes use the
/// other.
@Test func exportsNeverHoldThePoolsLastConnection() throws {
    let database = try PostgresServer.shared.get().freshDatabase()
    let entry = AuditEntry(at: Date(timeIntervalSince1970: 1_800_000_000), actor: .system, action: AuditAction("test.x"))
    let single = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
    #expect(single.maximumSnapshots == 0)
    let error = #expect(throws: PermissionError.self) { _ = try single.openSnapshot() }
    guard case .unavailable(let why, _) = error else {
        Issue.record("expected unavailable, got \(String(describing: error))")
        return
    }
    #expect(why.contains("--database-pool-size of 2 or more"), "\(why)")
    #expect(try single.write { try $0.append(entry) } == 1)
    single.close()

    let pair = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 2)
    defer { pair.close() }
    #expect(pair.maximumSnapshots == 1)
    let snapshot = try pair.openSnapshot()
    defer { snapshot.close() }
    #expect(try pair.write { try $0.append(entry) } == 2)
    #expect(try snapshot.read { try $0.lastAuditSeq() } == 1, "the snapshot's own moment")
}
