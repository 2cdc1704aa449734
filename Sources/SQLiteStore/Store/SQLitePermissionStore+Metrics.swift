package import PermissionDomain

extension SQLitePermissionStore {
    /// What `/metrics` samples from the database at scrape time.
    package struct MetricsSnapshot: Sendable {
        /// What the scrape read from the database; nil when it could not be read (the rest,
        /// kept in memory, is shown all the same).
        package var counts: StoreMetricsCounts?
        /// The writer's counters (commits, committed and failed writes).
        package var writer: DatabaseWriter.Statistics
        /// Transaction durations and sizes.
        package var writes: WriteMetrics.Snapshot
        /// The WAL's size and its checkpoints.
        package var checkpoints: Checkpointer.Statistics
        /// The read cache's counters, nil when it is off.
        package var readCache: ReadCache.Statistics?
        /// Audit entries this server knew found gone or changed (``auditChainRewrites``).
        package var auditChainRewrites: UInt64
    }

    /// Reads the audit head and the authorization counts in one read snapshot, and the writer's
    /// counters. Two indexed queries: `max(seq)` is one b-tree descent; the status counts scan
    /// the `authorizations_by_app_service_status` index once, on the scan connection
    /// (``DatabasePool/scan(_:)``), which leaves none of it mapped.
    /// When the database cannot be read, `counts` is nil and the rest is given.
    package func metricsSnapshot() -> MetricsSnapshot {
        let counts = try? pool.scan { database -> StoreMetricsCounts in
            let seq = try database.lastAuditSeq()
            // One pass, no GROUP BY: grouping sorts every row in memory first (about 50 MB at
            // 1,000,000 records, which malloc keeps resident after the scrape).
            let statuses = try database.withStatement(Self.statusCounts) { statement -> [String: Int] in
                guard try statement.step() else { return [:] }
                return [
                    "authorized": statement.int(at: 0), "denied": statement.int(at: 1),
                    "notDetermined": statement.int(at: 2),
                ]
            }
            return StoreMetricsCounts(auditSeq: seq, authorizationsByStatus: statuses)
        }
        return MetricsSnapshot(
            counts: counts, writer: pool.writer.currentStatistics,
            writes: pool.writer.metrics.snapshot, checkpoints: pool.writer.checkpointer.statistics,
            readCache: readCacheStatistics, auditChainRewrites: auditChainRewrites)
    }

    /// The records of each stored status, counted in one scan.
    private static let statusCounts = """
        SELECT count(*) FILTER (WHERE status = 'authorized'), count(*) FILTER (WHERE status = 'denied'),
               count(*) FILTER (WHERE status = 'notDetermined')
        FROM authorizations
        """
}
