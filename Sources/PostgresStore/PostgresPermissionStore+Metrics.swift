package import PermissionDomain

extension PostgresPermissionStore {
    /// What `/metrics` samples from a serving replica at scrape time.
    package struct MetricsSnapshot: Sendable {
        /// The revision this replica's reads see.
        package var visibleRevision: Int64
        /// The last audit seq in the database.
        package var auditSeq: Int64
        /// Authorization records by status.
        package var authorizationsByStatus: [String: Int]
        /// Whether the change log was read within the last second (memory trusted).
        package var readModelFresh: Bool
        /// Open pooled connections.
        package var openConnections: Int
        /// The read cache's counters, nil without a read model.
        package var readCache: ReadCache.Statistics?
    }

    private static let statusCounts = PreparedStatement("SELECT status, count(*) FROM authorizations GROUP BY status")

    /// Reads the audit head and the records by status (one scan of an index).
    /// - Throws: ``PermissionError/unavailable(why:cause:)`` when the database cannot be reached.
    package func metricsSnapshot() throws -> MetricsSnapshot {
        let (seq, statuses) = try run(begin: Self.beginRead, lockHead: false) { session -> (Int64, [String: Int]) in
            var statuses: [String: Int] = [:]
            for (status, count) in try session.rows(
                Self.statusCounts,
                decode: {
                    (try $0.required(0, "authorizations", "status"), Int(try $0.int64(at: 1)))
                })
            {
                statuses[status] = count
            }
            return (try session.lastAuditSeq(), statuses)
        }
        return MetricsSnapshot(
            visibleRevision: readModel?.visibleRevision ?? seq, auditSeq: seq, authorizationsByStatus: statuses,
            readModelFresh: readModel?.isFresh ?? true, openConnections: pool.openConnections,
            readCache: readModel?.cache.statistics)
    }
}
