package import AuditKeys
internal import Foundation
package import PermissionDomain

extension AuditEntry {
    /// Decodes a stored entry, opening its personal fields with the user's key while it exists
    /// (``StoredPersonalFields``).
    /// - Parameters:
    ///   - row: the stored columns of the chain's v2 encoding in order (`seq`, `at`, `actor_key`,
    ///     `actor_role`, `action`, the user, `app`, `service`, the four `from_` and four `to_`
    ///     columns, `reason`, `purpose`, `prompt_id`, `request_id`, `detail`, `purpose_hash`,
    ///     `prev_hash`, `hash`, `personal`), then the wrapped key of the entry's user (NULL once
    ///     erased), as both stores select them.
    ///   - keyring: the server key's keyring, which unwraps the user's key.
    /// - Throws: the store's corruption error for a value that does not parse, or an
    ///   ``AuditKeyError`` from opening the seal.
    package init(storedColumns row: some StoredColumns, keyring: AuditKeyring) throws {
        guard let seq = try row.integer(0) else { throw row.corrupt("audit", "seq") }
        let fields = try StoredPersonalFields(
            user: row.text(5), purpose: row.text(17), detail: row.text(20), personal: row.text(24),
            wrappedKey: row.text(25), seq: seq, keyring: keyring)
        var detail: [String: String] = [:]
        if let text = fields.detail {
            guard let decoded = DetailJSON.decode(text) else { throw row.corrupt("audit", "detail") }
            detail = decoded
        }
        self.init(
            seq: seq,
            at: Date(millisecondsSince1970: try row.integer(1) ?? 0),
            actor: Actor(keyId: row.text(2), role: try row.required(3, "audit", "actor_role")),
            action: AuditAction(try row.required(4, "audit", "action")),
            user: fields.user.map(UserID.init(trusted:)),
            app: row.text(6).map(AppID.init(trusted:)),
            service: row.text(7).map(ServiceID.init(trusted:)),
            from: try Self.snapshot(row, at: 8, "from_status"),
            to: try Self.snapshot(row, at: 12, "to_status"),
            reason: row.text(16) == nil ? nil : try row.enumeration(Reason.self, at: 16, "audit", "reason"),
            purpose: fields.purpose.map(PurposeString.init(trusted:)),
            promptId: row.text(18).map(PromptID.init(trusted:)),
            requestId: row.text(19),
            detail: detail,
            purposeHash: row.text(21),
            prevHash: row.text(22),
            hash: row.text(23),
            pseudonym: fields.pseudonym,
            personalDataErased: fields.erased)
    }

    /// The status, level, provisional and once columns from `index` on; nil when the status is NULL.
    private static func snapshot(
        _ row: some StoredColumns, at index: Int, _ column: String
    ) throws
        -> AuthorizationSnapshot?
    {
        guard row.text(index) != nil else { return nil }
        return AuthorizationSnapshot(
            status: try row.enumeration(AuthorizationStatus.self, at: index, "audit", column),
            level: row.text(index + 1).map(Level.init(trusted:)),
            provisional: try row.flag(index + 2),
            once: try row.flag(index + 3))
    }
}
