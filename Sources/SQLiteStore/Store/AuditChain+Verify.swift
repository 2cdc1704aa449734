import PermissionDomain

/// Walking the chain (``AuditChain``) over the reader pool.
extension AuditChain {
    /// One row as the verifier needs it.
    private struct Link {
        var seq: Int64
        var prevHash: String?
        var hash: String?
        var computed: String
    }

    /// Walks the audit log in seq order, `batchSize` rows per read transaction, and stops at
    /// the first entry that breaks the chain: a seq that is not the previous + 1 (from 1), a
    /// `prev_hash` that is not the previous `hash` (genesis: 64 zeros), or a `hash` that is not
    /// the hash of the row's canonical encoding.
    /// - Parameters:
    ///   - readers: read-only connections; nothing is written. Each batch starts a fresh read
    ///     transaction, so changes made to the file by other processes are seen.
    ///   - batchSize: rows per query.
    ///   - progress: called after each batch with (rows checked, total rows).
    static func verify(
        readers: ReaderPool, batchSize: Int, progress: (@Sendable (_ checked: Int64, _ total: Int64) -> Void)?
    ) throws -> AuditChainReport {
        var total = try readers.readLatest { database in
            try database.withStatement("SELECT count(*) FROM audit") { try $0.step() ? $0.int64(at: 0) : 0 }
        }
        let limit = Int64(max(1, batchSize))
        var expected: Int64 = 1
        var previous = genesis
        var intact: Int64 = 0
        var lastIntactSeq: Int64?
        var lastIntactHash: String?
        while true {
            let after = expected - 1
            let links = try readers.readLatest { database in
                try database.withStatement(
                    "SELECT \(selectList) FROM audit WHERE seq > ? ORDER BY seq LIMIT ?"
                ) { statement in
                    statement.bind(after, at: 1)
                    statement.bind(limit, at: 2)
                    var links: [Link] = []
                    while try statement.step() {
                        links.append(Link(
                            seq: statement.int64(at: 0), prevHash: statement.string(at: prevHashIndex),
                            hash: statement.string(at: hashIndex), computed: hash(ofRow: statement)))
                    }
                    statement.reset()
                    return links
                }
            }
            for link in links {
                let failure: AuditChainReport.Failure? =
                    if link.seq != expected { .seqGap }
                    else if link.prevHash != previous { .prevMismatch }
                    else if link.hash != link.computed { .hashMismatch }
                    else { nil }
                if let failure {
                    return AuditChainReport(
                        intactLength: intact, firstFailingSeq: expected, failure: failure,
                        totalEntries: max(total, intact + 1), lastIntactSeq: lastIntactSeq,
                        lastIntactHash: lastIntactHash)
                }
                intact += 1
                previous = link.computed
                lastIntactSeq = link.seq
                lastIntactHash = link.computed
                expected += 1
            }
            total = max(total, intact)
            progress?(intact, total)
            if Int64(links.count) < limit { break }
        }
        return AuditChainReport(
            intactLength: intact, totalEntries: total, lastIntactSeq: lastIntactSeq, lastIntactHash: lastIntactHash)
    }
}
