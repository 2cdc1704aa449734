/// The last entry of the audit hash chain: what the next entry links to.
package struct AuditChainTip: Equatable, Sendable {
    /// The last entry's seq; 0 for an empty log.
    package var seq: Int64
    /// The last entry's hash; ``AuditChain/genesis`` for an empty log.
    package var hash: String

    package init(seq: Int64, hash: String) {
        self.seq = seq
        self.hash = hash
    }

    /// The tip after `record` was appended.
    /// - Parameter record: a record with its hash set (``AuditChain/record(for:after:)``).
    package init(linking record: AuditRecord) {
        guard let hash = record.hash else { preconditionFailure("an audit record is appended with its hash") }
        self.init(seq: record.seq, hash: hash)
    }

    /// The tip of an empty log: the first entry gets seq 1 and links to the genesis value.
    package static let empty = AuditChainTip(seq: 0, hash: AuditChain.genesis)
}
