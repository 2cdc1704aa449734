package import PermissionDomain

/// Reading ``AuditRecord``s back: the migrations and the verifier select the hashed columns of
/// a format (``AuditChain/Format/columns``), then `hash`, and take them as they are stored.
extension AuditRecord {
    /// `SELECT` list of the current format: the hashed columns in encoding order, then `hash`.
    package static let selectList = selectList(.v2)

    /// `SELECT` list of `format`: its hashed columns in encoding order, then `hash`.
    package static func selectList(_ format: AuditChain.Format) -> String {
        (format.columns + ["hash"]).joined(separator: ", ")
    }

    /// The record `statement` is on (a query of ``selectList(_:)`` of `format`), every value as
    /// stored.
    package init(row statement: Statement, format: AuditChain.Format = .v2) {
        func text(_ index: Int32) -> String? { statement.string(at: index) }
        func integer(_ index: Int32) -> Int64? { statement.isNull(at: index) ? nil : statement.int64(at: index) }
        // v2 has `personal` at 22, before `prev_hash`; v1 has none.
        let tail: Int32 = format == .v2 ? 23 : 22
        self.init(
            seq: statement.int64(at: 0), at: statement.int64(at: 1), actorKey: text(2), actorRole: text(3),
            action: text(4), user: text(5), app: text(6), service: text(7), fromStatus: text(8), fromLevel: text(9),
            fromProvisional: integer(10), fromOnce: integer(11), toStatus: text(12), toLevel: text(13),
            toProvisional: integer(14), toOnce: integer(15), reason: text(16), purpose: text(17),
            purposeHash: text(18), promptId: text(19), requestId: text(20), detail: text(21),
            personal: format == .v2 ? text(22) : nil, prevHash: text(tail), hash: text(tail + 1))
    }
}
