import PermissionDomain

/// Reading ``AuditRecord``s back for the verifier: the hashed columns in encoding order
/// (``AuditChain/columns``, `user` stored as `user_id`), then `hash`, taken as they are stored.
extension AuditRecord {
    /// `SELECT` list: the hashed columns in encoding order, then `hash` (index 23).
    static let selectList = (AuditChain.columns.map { $0 == "user" ? "user_id" : $0 } + ["hash"]).joined(separator: ", ")

    /// The record `row` holds (a query of ``selectList``), every value as stored.
    init(row: PostgresRow) throws {
        func text(_ index: Int) -> String? { row.optionalString(at: index) }
        func integer(_ index: Int) throws -> Int64? { try row.optionalInt64(at: index) }
        self.init(
            seq: try row.int64(at: 0), at: try row.int64(at: 1), actorKey: text(2), actorRole: text(3),
            action: text(4), user: text(5), app: text(6), service: text(7), fromStatus: text(8), fromLevel: text(9),
            fromProvisional: try integer(10), fromOnce: try integer(11), toStatus: text(12), toLevel: text(13),
            toProvisional: try integer(14), toOnce: try integer(15), reason: text(16), purpose: text(17),
            purposeHash: text(18), promptId: text(19), requestId: text(20), detail: text(21), prevHash: text(22),
            hash: text(23))
    }
}
