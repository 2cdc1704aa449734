import PermissionDomain

/// Reading ``AuditRecord``s back for the verifier and the migrations: the hashed columns of a
/// format in encoding order (``AuditChain/Format/columns``, `user` stored as `user_id`), then
/// `hash`, taken as they are stored.
extension AuditRecord {
    /// `SELECT` list of the current format.
    static let selectList = selectList(.v2)

    /// `SELECT` list of `format`: its hashed columns in encoding order, then `hash`.
    static func selectList(_ format: AuditChain.Format) -> String {
        (format.columns.map { $0 == "user" ? "user_id" : $0 } + ["hash"]).joined(separator: ", ")
    }

    /// The record `row` holds (a query of ``selectList(_:)`` of `format`), every value as stored.
    init(row: PostgresRow, format: AuditChain.Format = .v2) throws {
        func text(_ index: Int) -> String? { row.optionalString(at: index) }
        func integer(_ index: Int) throws -> Int64? { try row.optionalInt64(at: index) }
        // v2 has `personal` at 22, before `prev_hash`; v1 has none.
        let tail = format == .v2 ? 23 : 22
        self.init(
            seq: try row.int64(at: 0), at: try row.int64(at: 1), actorKey: text(2), actorRole: text(3),
            action: text(4), user: text(5), app: text(6), service: text(7), fromStatus: text(8), fromLevel: text(9),
            fromProvisional: try integer(10), fromOnce: try integer(11), toStatus: text(12), toLevel: text(13),
            toProvisional: try integer(14), toOnce: try integer(15), reason: text(16), purpose: text(17),
            purposeHash: text(18), promptId: text(19), requestId: text(20), detail: text(21),
            personal: format == .v2 ? text(22) : nil, prevHash: text(tail), hash: text(tail + 1))
    }
}
