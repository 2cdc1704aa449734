/// What `/metrics` reads from the database itself at scrape time (each store's snapshot holds
/// it beside what it keeps in memory).
package struct StoreMetricsCounts: Sendable, Equatable {
    /// The last audit sequence number (0 when the log is empty).
    package var auditSeq: Int64
    /// Authorization records by status (`notDetermined`, `denied`, `authorized`).
    package var authorizationsByStatus: [String: Int]

    package init(auditSeq: Int64, authorizationsByStatus: [String: Int]) {
        self.auditSeq = auditSeq
        self.authorizationsByStatus = authorizationsByStatus
    }
}
