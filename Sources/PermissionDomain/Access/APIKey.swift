public import Foundation

/// An API key as stored (SPEC §6): its role, the app an `app` key is bound to, a label, and
/// the SHA-256 of its secret (never the secret itself).
public struct APIKey: Hashable, Sendable {
    public let id: KeyID
    public let role: Role
    /// The app an `app` key is bound to; nil for every other role.
    public let app: AppID?
    /// A label for operators, 1 to 100 characters without control characters.
    public let name: String
    /// SHA-256 of the whole secret (32 bytes).
    public let secretHash: [UInt8]
    public let createdAt: Date
    /// When the key was revoked; a revoked key never authenticates again.
    public var revokedAt: Date?

    /// Validates the binding and the label.
    /// - Throws: `PermissionError.invalidCombination` for role `user` (a consent session's, never
    ///   a key's); `.invalidArgument` when an `app` key has no app, another role has one, the
    ///   name is empty, too long or has control characters, or the hash is not 32 bytes.
    public init(
        id: KeyID, role: Role, app: AppID?, name: String, secretHash: [UInt8], createdAt: Date, revokedAt: Date? = nil
    ) throws(PermissionError) {
        guard role.isKeyRole else {
            throw .invalidCombination(field: "role", why: "user is a consent session's role, never an API key's")
        }
        if role == .app, app == nil { throw .invalidCombination(field: "app", why: "an app key must name its app") }
        if role != .app, app != nil { throw .invalidCombination(field: "app", why: "only an app key is bound to an app") }
        guard IdentifierSyntax.isDisplayText(name, maxCount: 100) else {
            throw .invalidArgument(field: "name", why: "must be 1 to 100 characters without control characters")
        }
        guard secretHash.count == 32 else { throw .invalidArgument(field: "secretHash", why: "must be 32 bytes") }
        self.init(
            trusted: id, role: role, app: app, name: name, secretHash: secretHash, createdAt: createdAt,
            revokedAt: revokedAt)
    }

    /// Wraps values already validated (read back from the store); not for input.
    package init(
        trusted id: KeyID, role: Role, app: AppID?, name: String, secretHash: [UInt8], createdAt: Date, revokedAt: Date?
    ) {
        self.id = id
        self.role = role
        self.app = app
        self.name = name
        self.secretHash = secretHash
        self.createdAt = createdAt.truncatedToMilliseconds
        self.revokedAt = revokedAt?.truncatedToMilliseconds
    }

    /// Equal when every field is; the secret hash is compared in constant time
    /// (`ConstantTime.equal`), as everywhere a secret or its hash is compared.
    public static func == (lhs: APIKey, rhs: APIKey) -> Bool {
        // Every field is compared whatever the others hold, the hash included.
        let hashes = ConstantTime.equal(lhs.secretHash, rhs.secretHash)
        return hashes && lhs.id == rhs.id && lhs.role == rhs.role && lhs.app == rhs.app && lhs.name == rhs.name
            && lhs.createdAt == rhs.createdAt && lhs.revokedAt == rhs.revokedAt
    }

    /// Not revoked.
    public var isActive: Bool { revokedAt == nil }

    /// The actor of the key's changes in the audit log: key id and role (SPEC §5).
    public var actor: Actor { Actor(keyId: id.rawValue, role: role.rawValue) }
}
