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
