package import PermissionDomain

/// Reading ``AuditRecord``s back: the migration's backfill and the verifier select the columns
/// of ``AuditChain/columns`` (then `hash`) and take them as they are stored.
extension AuditRecord {
    /// `SELECT` list: the hashed columns in encoding order, then `hash` (index 23).
    package static let selectList = (AuditChain.columns + ["hash"]).joined(separator: ", ")

    /// The record `statement` is on (a query of ``selectList``), every value as stored.
    package init(row statement: Statement) {
        func text(_ index: Int32) -> String? { statement.string(at: index) }
        func integer(_ index: Int32) -> Int64? { statement.isNull(at: index) ? nil : statement.int64(at: index) }
        self.init(
            seq: statement.int64(at: 0), at: statement.int64(at: 1), actorKey: text(2), actorRole: text(3),
            action: text(4), user: text(5), app: text(6), service: text(7), fromStatus: text(8), fromLevel: text(9),
            fromProvisional: integer(10), fromOnce: integer(11), toStatus: text(12), toLevel: text(13),
            toProvisional: integer(14), toOnce: integer(15), reason: text(16), purpose: text(17),
            purposeHash: text(18), promptId: text(19), requestId: text(20), detail: text(21), prevHash: text(22),
            hash: text(23))
    }
}
