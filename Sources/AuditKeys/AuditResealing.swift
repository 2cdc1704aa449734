import Foundation
package import PermissionDomain

/// The walk of the migration that reseals a log written before personal fields were sealed,
/// the same on both stores: fed the old records in seq order, it checks them against the old
/// format's chain, seals each entry about a user (``SubjectSealer``), links and hashes it in the
/// current format, and at the end makes the `audit.resealed` entry that records the old head.
package struct AuditResealing {
    private let sealer: SubjectSealer
    private var old = AuditChainWalk(chain: .sha256V1)
    private var oldHead = AuditChainTip.empty
    /// The last resealed record: where the next links, and where the keyset goes on.
    package private(set) var tip = AuditChainTip.empty

    package init(sealer: SubjectSealer) {
        self.sealer = sealer
    }

    /// `record` (in the old format, the next in seq order) as the current format stores it.
    package mutating func reseal(_ record: AuditRecord) throws -> AuditRecord {
        var record = record
        if !old.isBroken { old.check(record) }
        oldHead = AuditChainTip(seq: record.seq, hash: record.hash ?? "")
        if let fields = record.personalFields {
            record.seal(try sealer.seal(fields, seq: record.seq))
        }
        record.prevHash = tip.hash
        record.hash = AuditChain.sha256.hash(of: record)
        tip = AuditChainTip(linking: record)
        return record
    }

    /// The `audit.resealed` entry (actor `system`): the old chain's head, its length, and whether
    /// it verified.
    /// - Parameter total: how many rows the old log held.
    package func resealedEntry(total: Int64) -> AuditEntry {
        AuditEntry(
            at: Date(), actor: .system, action: .auditResealed,
            detail: [
                "previousHead": oldHead.hash, "previousSeq": String(oldHead.seq),
                "previousFormat": String(decoding: AuditChain.Format.v1.tag, as: UTF8.self),
                "previousChainIntact": old.report(totalEntries: total).isIntact ? "true" : "false",
            ])
    }
}
