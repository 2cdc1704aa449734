package import PermissionDomain

extension SQLitePermissionStore {
    /// What `/metrics` samples from the database at scrape time.
    package struct MetricsSnapshot: Sendable {
        /// The last audit sequence number (0 when the log is empty).
        package var auditSeq: Int64
        /// Authorization records by status (`notDetermined`, `denied`, `authorized`).
        package var authorizationsByStatus: [String: Int]
        /// The writer's counters (commits, committed and failed writes).
        package var writer: DatabaseWriter.Statistics
        /// Transaction durations and sizes.
        package var writes: WriteMetrics.Snapshot
        /// The WAL's size and its checkpoints.
        package var checkpoints: Checkpointer.Statistics
        /// The read cache's counters, nil when it is off.
        package var readCache: ReadCache.Statistics?
    }

    /// Reads the audit head and the authorization counts in one read snapshot, and the writer's
    /// counters. Two indexed queries: `max(seq)` is one b-tree descent; the status counts scan
    /// the `authorizations_by_app_service_status` index once, on the scan connection
    /// (``DatabasePool/scan(_:)``), which leaves none of it mapped.
    /// - Throws: `SQLiteError` when the database cannot be read.
    package func metricsSnapshot() throws -> MetricsSnapshot {
        let (seq, statuses) = try pool.scan { database -> (Int64, [String: Int]) in
            let seq = try database.withStatement("SELECT coalesce(max(seq), 0) FROM audit") { statement in
                try statement.step() ? statement.int64(at: 0) : 0
            }
            // One pass, no GROUP BY: grouping sorts every row in memory first (about 50 MB at
            // 1,000,000 records, which malloc keeps resident after the scrape).
            let statuses = try database.withStatement(Self.statusCounts) { statement -> [String: Int] in
                guard try statement.step() else { return [:] }
                return [
                    "authorized": statement.int(at: 0), "denied": statement.int(at: 1),
                    "notDetermined": statement.int(at: 2),
                ]
            }
            return (seq, statuses)
        }
        return MetricsSnapshot(
            auditSeq: seq, authorizationsByStatus: statuses, writer: pool.writer.currentStatistics,
            writes: pool.writer.metrics.snapshot, checkpoints: pool.writer.checkpointer.statistics,
            readCache: readCacheStatistics)
    }

    /// The records of each stored status, counted in one scan.
    private static let statusCounts = """
        SELECT count(*) FILTER (WHERE status = 'authorized'), count(*) FILTER (WHERE status = 'denied'),
               count(*) FILTER (WHERE status = 'notDetermined')
        FROM authorizations
        """
}
