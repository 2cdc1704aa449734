/// Verification of the audit hash chain (``AuditChain``), fed the stored records in seq order
/// as a store reads them (in batches, with I/O between them), stopping at the first record that
/// breaks the chain: a seq that is not the previous + 1 (from 1), a `prev_hash` that is not the
/// previous `hash` (``AuditChain/genesis`` first), or a `hash` that is not the record's hash.
package struct AuditChainWalk: Sendable {
    private let chain: AuditChain
    /// The seq the next record must have.
    private var expected: Int64 = 1
    /// The hash the next record must link to.
    private var previous = AuditChain.genesis
    private var lastIntactHash: String?
    /// Where the chain broke, once it did.
    private(set) var failure: AuditChainReport.Failure?

    package init(chain: AuditChain) {
        self.chain = chain
    }

    /// How many records, from seq 1, form an intact chain so far.
    package var intactLength: Int64 { expected - 1 }

    /// The seq after which the next batch starts (keyset position).
    package var lastSeq: Int64 { expected - 1 }

    /// Whether a record broke the chain; ``check(_:)`` must not be called after.
    package var isBroken: Bool { failure != nil }

    /// Checks the next record in seq order.
    /// - Returns: true when it extends the intact chain, false when it breaks it (the walk
    ///   stops; ``report(totalEntries:)`` names it).
    @discardableResult
    package mutating func check(_ record: AuditRecord) -> Bool {
        precondition(failure == nil, "the audit chain walk goes on after the chain broke")
        let computed = chain.hash(of: record)
        failure =
            if record.seq != expected { .seqGap } else if record.prevHash != previous {
                .prevMismatch
            } else if record.hash != computed { .hashMismatch } else { nil }
        guard failure == nil else { return false }
        previous = computed
        lastIntactHash = computed
        expected += 1
        return true
    }

    /// The result so far.
    /// - Parameter totalEntries: how many entries the log holds, as the store counted them; a
    ///   broken chain reports at least one more than its intact part.
    package func report(totalEntries: Int64) -> AuditChainReport {
        let intact = intactLength
        let lastIntactSeq: Int64? = intact > 0 ? intact : nil
        guard let failure else {
            return AuditChainReport(
                intactLength: intact, totalEntries: max(totalEntries, intact), lastIntactSeq: lastIntactSeq,
                lastIntactHash: lastIntactHash)
        }
        return AuditChainReport(
            intactLength: intact, firstFailingSeq: expected, failure: failure, totalEntries: max(totalEntries, intact + 1),
            lastIntactSeq: lastIntactSeq, lastIntactHash: lastIntactHash)
    }
}
