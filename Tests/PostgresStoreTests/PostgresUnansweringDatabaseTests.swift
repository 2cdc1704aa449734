import Foundation
import PermissionDomain
import PostgresTestServer
import StoreTestSupport
import TestThreads
import Testing

@testable import PostgresStore

/// Live: a database that stops answering without closing its connections (a stopped process,
/// a stalled disk, a hung pooler; here a proxy that forwards nothing while frozen) fails a
/// serving replica's calls at the answer timeout, as unavailable, instead of holding them for as
/// long as it lasts; the given-up connections are never used again, and all recovers by itself.
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct PostgresUnansweringDatabaseTests {
    private static let now = Date(millisecondsSince1970: 1_795_000_000_000)
    /// The statements end on the server at 1.35 s: room for a loaded machine.
    private static let timeout = Duration.milliseconds(1_500)

    private static func append(_ store: PostgresPermissionStore) throws -> Int64 {
        try store.write { try $0.append(AuditEntry(at: now, actor: .system, action: AuditAction("test.answered"))) }
    }

    private static func isUnavailable(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch PermissionError.unavailable {
            return true
        } catch {
            return false
        }
    }

    @Test func callsToADatabaseThatStopsAnsweringFailAtTheAnswerTimeout() throws {
        let server = try PostgresServer.shared.get()
        let proxy = try FreezingProxy(serverDirectory: server.directory, port: PostgresServer.port)
        defer { proxy.stop() }
        // A connection opened while frozen waits for its connect_timeout (here 2 s, libpq's
        // least) and is tried once more: the answer timeout bounds only round trips.
        let database = proxy.route(try server.freshDatabase(), serverDirectory: server.directory) + " connect_timeout=2"
        let store = try PostgresPermissionStore.open(
            connectionString: database, keyring: .forTests, poolSize: 2,
            readModel: .init(cacheEntries: 100, answerTimeout: Self.timeout))
        defer { store.close() }
        let first = try Self.append(store)

        proxy.freeze()
        var started = ContinuousClock.now
        #expect(Self.isUnavailable { _ = try Self.append(store) }, "a write")
        var waited = ContinuousClock.now - started
        // The timeout once: a given-up connection is not replaced and tried again at once.
        #expect(waited >= Self.timeout && waited < .seconds(4), "the write failed after \(waited)")
        started = ContinuousClock.now
        #expect(Self.isUnavailable { _ = try store.committedRevision() }, "a read of the database")
        waited = ContinuousClock.now - started
        #expect(waited < .seconds(8), "the read failed after \(waited)")
        started = ContinuousClock.now
        #expect(Self.isUnavailable { try store.checkReady() }, "the readiness check")
        #expect(ContinuousClock.now - started < .seconds(8))

        proxy.thaw()
        let deadline = ContinuousClock.now + .seconds(20)
        var next: Int64?
        while next == nil && ContinuousClock.now < deadline {
            next = try? Self.append(store)
            if next == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        let recovered = try #require(next, "the store did not recover")
        // Whatever was cut off was not half-applied: the log is gap-free, and the new entry
        // follows what the database holds.
        let seqs = try store.read { try $0.audit(query: AuditQuery(after: 0, limit: 100)) }.map(\.seq)
        #expect(seqs == Array(1...recovered) && seqs.contains(first))
    }

    /// A serving replica's statements end on the server a second before the client would give
    /// them up, so that none keeps running there unwaited for; a migration is bounded by neither.
    @Test func servingConnectionsEndTheirStatementsOnTheServerFirst() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(
            connectionString: database, keyring: .forTests, poolSize: 1,
            readModel: .init(cacheEntries: 10, answerTimeout: .seconds(20)))
        defer { store.close() }
        let shown = try store.run(begin: PostgresPermissionStore.beginRead, lockHead: false) { session in
            try session.connection.query(PreparedStatement("SHOW statement_timeout"))[0].string(at: 0)
        }
        #expect(shown == "19s", "a second before the answer timeout")
        let short = try PostgresPermissionStore.open(
            connectionString: database, keyring: .forTests, poolSize: 1,
            readModel: .init(cacheEntries: 10, answerTimeout: .milliseconds(500)))
        defer { short.close() }
        let tenth = try short.run(begin: PostgresPermissionStore.beginRead, lockHead: false) { session in
            try session.connection.query(PreparedStatement("SHOW statement_timeout"))[0].string(at: 0)
        }
        #expect(tenth == "450ms", "a tenth of it before a timeout shorter than 10 s")
        let slow = try PostgresConnection(database)
        try slow.execute("SET statement_timeout = 200")
        #expect(throws: PostgresError.self) { try slow.execute("SELECT pg_sleep(2)") }
        let commands = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
        let unbounded = try commands.run(begin: PostgresPermissionStore.beginRead, lockHead: false) { session in
            try session.connection.query(PreparedStatement("SHOW statement_timeout"))[0].string(at: 0)
        }
        #expect(unbounded == "0", "the operator commands' statements are not bounded")
    }

    /// A round trip that takes longer than the timeout because the server is busy fails the
    /// same way; without a timeout (the operator commands, migrations) it waits.
    @Test func aSlowStatementFailsAtTheTimeoutAndOnlyWhenOneIsSet() throws {
        let connection = try PostgresConnection(try PostgresServer.shared.get().freshDatabase())
        try connection.execute("SELECT pg_sleep(0.3)")
        connection.answerTimeout = .milliseconds(100)
        let started = ContinuousClock.now
        do {
            try connection.execute("SELECT pg_sleep(2)")
            Issue.record("the statement was not given up")
        } catch let error as PostgresError {
            #expect(error.isAnswerTimeout && error.isConnectionFailure, "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(!connection.isConnected, "a given-up connection is never used again")
        #expect(throws: PostgresError.self) { try connection.execute("SELECT 1") }
    }
}
