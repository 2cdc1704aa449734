public import Logging
public import PermissionDomain

/// The first admin key, from an operator-chosen secret (`PERMISSION_BOOTSTRAP_ADMIN_KEY`,
/// SPEC §6): created at start as an admin key named `bootstrap` while the database has no active
/// admin key (and no key with that secret exists): a value changed later never adds another
/// admin. The secret is either a `pk_<16 hex>_<random>` token or any RFC 6750 `b64token` of
/// 32 to 256 characters (e.g. `openssl rand -hex 32`). It is never logged.
public enum KeyBootstrap {
    /// What `ensureAdminKey` did.
    public enum Outcome: Equatable, Sendable {
        /// A new admin key with this id.
        case created(KeyID)
        /// The key exists and is active.
        case existing(KeyID)
        /// The key exists but was revoked: it is not brought back.
        case revoked(KeyID)
        /// No key has the secret, and the database has an active admin key already: none is
        /// made (the bootstrap key is the first admin key only).
        case ignored(KeyID)
    }

    /// Creates the bootstrap admin key for `secret` unless it exists.
    /// - Throws: `PermissionError.invalidArgument` when `secret` is not acceptable, or when
    ///   its id belongs to a key with another secret; store errors.
    @discardableResult
    public static func ensureAdminKey(secret: String, service: PermissionService, logger: Logger) throws -> Outcome {
        let hash = KeySecret.hash(secret.utf8)
        guard let id = KeySecret.keyID(of: Substring(secret).utf8, hash: hash) else {
            throw PermissionError.invalidArgument(
                field: "PERMISSION_BOOTSTRAP_ADMIN_KEY",
                why: "must be pk_<16 hex digits>_<random> or 32 to 256 characters of A-Z a-z 0-9 - . _ ~ + / =")
        }
        if let key = try service.key(id: id) {
            guard ConstantTime.equal(key.secretHash, hash) else {
                throw PermissionError.invalidArgument(
                    field: "PERMISSION_BOOTSTRAP_ADMIN_KEY", why: "its key id \(id) belongs to another key; pick another secret")
            }
            if key.isActive { return .existing(id) }
            logger.warning("the bootstrap admin key was revoked; not creating it again", metadata: ["key": "\(id)"])
            return .revoked(id)
        }
        if try service.keys().contains(where: { $0.role == .admin && $0.isActive }) {
            logger.notice(
                "the database has an active admin key; PERMISSION_BOOTSTRAP_ADMIN_KEY makes the first one only, so no key was created (unset it, or use keys create)",
                metadata: ["key": "\(id)"])
            return .ignored(id)
        }
        do {
            _ = try service.createKey(
                id: id, role: .admin, app: nil, name: "bootstrap", secretHash: hash, actor: .system, requestId: nil)
        } catch let error as PermissionError {
            // Replicas started together: another one created it between the read and the write.
            guard case .conflict = error, let key = try service.key(id: id), ConstantTime.equal(key.secretHash, hash)
            else { throw error }
            return key.isActive ? .existing(id) : .revoked(id)
        }
        logger.notice("bootstrap admin key created", metadata: ["key": "\(id)"])
        return .created(id)
    }

    /// A new random key secret and its id (`pk_<id>_<43 base64url characters>`), for the
    /// `keys create` subcommand.
    public static func generate() -> (id: KeyID, secret: String) { KeySecret.generate() }

    /// SHA-256 of a secret, as stored.
    public static func hash(_ secret: String) -> [UInt8] { KeySecret.hash(secret.utf8) }
}
