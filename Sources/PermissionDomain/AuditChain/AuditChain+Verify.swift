extension AuditChain {
    /// Verifies `records`, the whole log in seq order, in memory (a store walks a large log in
    /// batches with ``AuditChainWalk`` instead).
    package func verify(_ records: some Sequence<AuditRecord>) -> AuditChainReport {
        var walk = AuditChainWalk(chain: self)
        var count: Int64 = 0
        for record in records {
            count += 1
            if !walk.isBroken { walk.check(record) }
        }
        return walk.report(totalEntries: count)
    }
}

extension AuditChain {
    /// Verifies the whole log in batches: `fetch` reads the records after a seq in seq order
    /// (at most `limit`, each batch in a read of its own, so a store never holds one snapshot
    /// for the whole walk), until the chain breaks or the rows end. The walk, the stop at the
    /// first break and the progress are the same whatever the store.
    /// - Parameters:
    ///   - total: how many entries the log holds, as the store counted them first.
    ///   - batchSize: records per fetch (at least 1).
    ///   - progress: called after each batch with (records checked, total).
    ///   - fetch: the records after `after`, at most `limit`, in seq order.
    package func verify(
        total: Int64, batchSize: Int, progress: (@Sendable (_ checked: Int64, _ total: Int64) -> Void)?,
        fetch: (_ after: Int64, _ limit: Int64) throws -> [AuditRecord]
    ) rethrows -> AuditChainReport {
        var total = total
        let limit = Int64(max(1, batchSize))
        var walk = AuditChainWalk(chain: self)
        while true {
            let records = try fetch(walk.lastSeq, limit)
            for record in records where !walk.check(record) {
                return walk.report(totalEntries: total)
            }
            total = max(total, walk.intactLength)
            progress?(walk.intactLength, total)
            if Int64(records.count) < limit { break }
        }
        return walk.report(totalEntries: total)
    }
}
