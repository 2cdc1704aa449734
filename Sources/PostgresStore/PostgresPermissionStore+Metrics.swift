package import PermissionDomain

extension PostgresPermissionStore {
    /// What `/metrics` samples from a serving replica at scrape time.
    package struct MetricsSnapshot: Sendable {
        /// The revision this replica's reads see.
        package var visibleRevision: Int64
        /// What the scrape read from the database; nil when it could not be reached (the rest,
        /// kept in memory, is shown all the same).
        package var counts: StoreMetricsCounts?
        /// Whether the change log was read within the last second (memory trusted).
        package var readModelFresh: Bool
        /// Open pooled connections.
        package var openConnections: Int
        /// The read cache's counters, nil without a read model.
        package var readCache: ReadCache.Statistics?
        /// The database's clock minus this host's, seconds (``PostgresClockOffset``); nil
        /// without a read model.
        package var clockOffset: Double?
    }

    /// The longest a scrape waits for the database's figures.
    static let metricsAnswerTimeout: Duration = .seconds(2)

    private static let statusCounts = PreparedStatement("SELECT status, count(*) FROM authorizations GROUP BY status")
    /// The server ends each of the scrape's statements well before the scrape stops waiting
    /// for it (``metricsAnswerTimeout``, less 500 ms): a slow count neither runs on there
    /// unwatched nor breaks the connection, which would close the pool's idle ones with it.
    static let metricsStatementTimeout = "SET LOCAL statement_timeout = 1500"

    /// Reads the audit head and the records by status (one scan of an index). When the database
    /// cannot be reached, `counts` is nil and the rest is given.
    package func metricsSnapshot() -> MetricsSnapshot {
        // At most 2 s for the database's part: a scrape waits for the whole page, and
        // Prometheus gives one 10 s by default; without it the page says permission_database_up 0.
        let counts = try? pool.withConnection { connection -> StoreMetricsCounts in
            let bound = connection.answerTimeout
            connection.answerTimeout = min(bound ?? Self.metricsAnswerTimeout, Self.metricsAnswerTimeout)
            defer { connection.answerTimeout = bound }
            return try transaction(on: connection, begin: Self.beginRead, lockHead: false) { session -> StoreMetricsCounts in
                try session.connection.execute(Self.metricsStatementTimeout)
                var statuses: [String: Int] = [:]
                for (status, count) in try session.rows(
                    Self.statusCounts,
                    decode: {
                        (try $0.required(0, "authorizations", "status"), Int(try $0.int64(at: 1)))
                    })
                {
                    statuses[status] = count
                }
                return StoreMetricsCounts(auditSeq: try session.lastAuditSeq(), authorizationsByStatus: statuses)
            }
        }
        return MetricsSnapshot(
            visibleRevision: readModel?.visibleRevision ?? counts?.auditSeq ?? 0, counts: counts,
            readModelFresh: readModel?.isFresh ?? true, openConnections: pool.openConnections,
            readCache: readModel?.cache.statistics, clockOffset: clockOffset?.estimate)
    }
}
