import Foundation
import PermissionDomain
import PostgresTestServer
import StoreTestSupport
import Testing

@testable import PostgresStore

/// Live: a `/metrics` scrape waits at most 2 s for the database's figures, and the server ends
/// its statements first: a count held up (a lock, a huge table) leaves no query running on the
/// server and no broken connection behind, so the pool's idle connections stay open.
@Suite(.timeLimit(.minutes(1)), .blocksItsThread) struct PostgresMetricsScrapeTests {
    @Test func aSlowScrapeEndsOnTheServerAndKeepsThePool() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(
            connectionString: database, keyring: .forTests, poolSize: 4, readModel: .init(cacheEntries: 10))
        defer { store.close() }
        #expect(store.metricsSnapshot().counts != nil)
        let open = store.openConnections
        #expect(open >= 1)

        // Another client holds the table: the count waits for its lock.
        let holder = try PostgresConnection(database)
        try holder.execute("BEGIN; LOCK authorizations IN ACCESS EXCLUSIVE MODE")
        let started = ContinuousClock.now
        let scraped = store.metricsSnapshot()
        let waited = ContinuousClock.now - started
        #expect(scraped.counts == nil, "the figures are not there")
        #expect(waited < .seconds(10), "the scrape waited \(waited)")
        #expect(store.openConnections == open, "no connection broke, none was dropped")
        let running = try holder.query(
            PreparedStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%FROM authorizations GROUP BY status%' AND state = 'active' AND pid <> pg_backend_pid()"
            ))[0].int64(at: 0)
        #expect(running == 0, "the count still runs on the server")
        try holder.execute("ROLLBACK")
        #expect(store.metricsSnapshot().counts != nil)
    }
}
