/// API keys (SPEC §6): issued, listed and revoked by an admin, each change audited without
/// the secret. The caller makes the secret and passes its SHA-256 (the domain does no crypto).
extension PermissionService {
    /// The `key.created` detail that records the fingerprint of the key's secret hash
    /// (``PermissionStore/keyFingerprint(ofSecretHash:)``: neither the secret nor its stored
    /// hash), what ``AuditChainVerifier/unauditedKeys()`` compares the stored key with.
    public static let secretFingerprintDetail = "secretFingerprint"

    /// Stores a new key and audits `key.created`, with its secret hash's fingerprint.
    /// - Parameters:
    ///   - id: the key's id (the middle of its `pk_<id>_...` secret).
    ///   - secretHash: SHA-256 of the secret.
    /// - Throws: `PermissionError.invalidArgument` (binding, name), `.conflict` when the id
    ///   exists.
    public func createKey(
        id: KeyID, role: Role, app: AppID?, name: String, secretHash: [UInt8], actor: Actor, requestId: String?
    ) throws -> APIKey {
        try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            let key = try APIKey(
                id: id, role: role, app: app, name: name, secretHash: secretHash, createdAt: context.now)
            guard try writer.apiKey(id: id) == nil else { throw PermissionError.conflict(why: "key \(id) exists") }
            try writer.save(key)
            var detail = ["key": id.rawValue, "role": role.rawValue, "name": name]
            detail["app"] = app?.rawValue
            detail[Self.secretFingerprintDetail] = store.keyFingerprint(ofSecretHash: secretHash)
            try writer.append(
                AuditEntry(
                    at: context.now, actor: context.actor, action: .keyCreated, app: app,
                    requestId: context.requestId, detail: detail))
            return key
        }
    }

    /// Revokes a key and audits `key.revoked`. Revoking a revoked key changes nothing.
    /// - Throws: `PermissionError.notFound`; `.conflict` when it is the last active admin key
    ///   (operators must not lock themselves out).
    public func revokeKey(id: KeyID, actor: Actor, requestId: String?) throws -> APIKey {
        try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            guard var key = try writer.apiKey(id: id) else { throw PermissionError.notFound(what: "key \(id)") }
            guard key.isActive else { return key }
            if key.role == .admin {
                let admins = try writer.apiKeys().filter { $0.role == .admin && $0.isActive }
                guard admins.count > 1 else {
                    throw PermissionError.conflict(why: "key \(id) is the last active admin key; issue another first")
                }
            }
            key.revokedAt = context.now
            try writer.save(key)
            try writer.append(
                AuditEntry(
                    at: context.now, actor: context.actor, action: .keyRevoked, app: key.app,
                    requestId: context.requestId, detail: ["key": id.rawValue, "role": key.role.rawValue]))
            return key
        }
    }

    /// The key with `id`, revoked or not, or nil.
    public func key(id: KeyID) throws -> APIKey? {
        try store.read { try $0.apiKey(id: id) }
    }

    /// Every key, revoked ones included, ordered by id.
    public func keys() throws -> [APIKey] {
        try store.read { try $0.apiKeys() }
    }
}
