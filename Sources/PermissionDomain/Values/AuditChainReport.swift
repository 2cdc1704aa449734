/// The result of walking the audit hash chain in seq order (see `AuditChainVerifier`).
///
/// The chain is intact when every entry's `seq` is the previous one + 1 (starting at 1), its
/// `prevHash` equals the previous entry's `hash` (64 zeros for the first), and its `hash` is
/// the SHA-256 of its canonical encoding. The walk stops at the first entry that fails.
public struct AuditChainReport: Sendable, Equatable {
    /// Why an entry breaks the chain.
    public enum Failure: String, Sendable, Equatable {
        /// The stored hash is not the hash of the entry's content: the row was edited.
        case hashMismatch
        /// The entry's `prevHash` is not the previous entry's hash: a row before it was
        /// replaced (with a recomputed hash) or the chain was spliced.
        case prevMismatch
        /// The entry's seq is not the previous seq + 1: rows were deleted (or inserted).
        case seqGap
    }

    /// How many entries, from seq 1, form an intact chain.
    public var intactLength: Int64
    /// The seq where the chain breaks (for a gap: the seq that was expected), nil when intact.
    public var firstFailingSeq: Int64?
    /// Why the chain breaks at ``firstFailingSeq``.
    public var failure: Failure?
    /// How many entries the log holds.
    public var totalEntries: Int64
    /// The last intact entry's seq and hash (the chain head when intact); nil for an empty log.
    public var lastIntactSeq: Int64?
    public var lastIntactHash: String?

    /// Whether every entry verified.
    public var isIntact: Bool { failure == nil }

    public init(
        intactLength: Int64, firstFailingSeq: Int64? = nil, failure: Failure? = nil, totalEntries: Int64,
        lastIntactSeq: Int64? = nil, lastIntactHash: String? = nil
    ) {
        self.intactLength = intactLength
        self.firstFailingSeq = firstFailingSeq
        self.failure = failure
        self.totalEntries = totalEntries
        self.lastIntactSeq = lastIntactSeq
        self.lastIntactHash = lastIntactHash
    }
}
