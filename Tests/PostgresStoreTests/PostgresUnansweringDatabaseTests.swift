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
        let proxy = try FreezingProxy(serverDirectory: server.directory, port: server.port)
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
        let frozen = ContinuousClock.now
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
        // Once the follower has not read the log for that long, readiness fails at once, with no
        // round trip that would wait the answer timeout.
        while ContinuousClock.now - frozen < PostgresPermissionStore.readinessStaleness + .milliseconds(200) {
            Thread.sleep(forTimeInterval: 0.1)
        }
        started = ContinuousClock.now
        #expect(Self.isUnavailable { try store.checkReady() }, "the readiness check, later")
        #expect(ContinuousClock.now - started < .milliseconds(500), "at once")

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

    /// The `statement_timeout` a store's pooled connections run with: a serving one's answer
    /// timeout, or none (`nil`: the operator commands').
    private static func statementTimeout(_ database: String, answerTimeout: Duration?) throws -> String {
        let store = try PostgresPermissionStore.open(
            connectionString: database, keyring: .forTests, poolSize: 1,
            readModel: answerTimeout.map { .init(cacheEntries: 10, answerTimeout: $0) })
        defer { store.close() }
        return try store.run(begin: PostgresPermissionStore.beginRead, lockHead: false) { session in
            try session.connection.query(PreparedStatement("SHOW statement_timeout"))[0].string(at: 0)
        }
    }

    /// A serving replica's statements end on the server before the client would give them up
    /// (a tenth of the answer timeout before it, at most a second), so that none keeps running
    /// there unwaited for; the operator commands' (and migrations) are bounded by neither.
    @Test func servingConnectionsEndTheirStatementsOnTheServerFirst() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        #expect(try Self.statementTimeout(database, answerTimeout: .seconds(20)) == "19s")
        #expect(try Self.statementTimeout(database, answerTimeout: .milliseconds(500)) == "450ms")
        #expect(try Self.statementTimeout(database, answerTimeout: nil) == "0")
        let slow = try PostgresConnection(database)
        try slow.execute("SET statement_timeout = 200")
        #expect(throws: PostgresError.self) { try slow.execute("SELECT pg_sleep(2)") }
    }

    /// A statement the database ends at its statement timeout (a query over too much of the
    /// log, say) is unavailable (503), as a lock wait that timed out is, not an internal error.
    @Test func aStatementEndedAtItsTimeoutIsUnavailable() throws {
        let store = try PostgresPermissionStore.open(
            connectionString: try PostgresServer.shared.get().freshDatabase(), keyring: .forTests, poolSize: 2,
            readModel: .init(cacheEntries: 100, answerTimeout: .seconds(5)))  // the statement's: 4.5 s
        defer { store.close() }
        do {
            try store.run(begin: PostgresPermissionStore.beginRead, lockHead: false) { session in
                try session.connection.execute("SELECT pg_sleep(8)")
            }
            Issue.record("the statement was not ended")
        } catch PermissionError.unavailable(let why, let cause) {
            #expect(why == "the database ended the query (its statement timeout, or an operator cancelled it)", "\(why)")
            #expect(cause?.contains("statement timeout") == true, "\(cause ?? "")")
        }
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
