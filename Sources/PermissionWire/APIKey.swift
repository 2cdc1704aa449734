public import Foundation

/// An API key as listed (SPEC §6): never the secret, which only `IssuedAPIKey` carries, once.
public struct APIKey: Codable, Sendable, Equatable {
    public var id: String
    public var role: Role
    /// The app an `app` key is bound to.
    public var app: String?
    /// A label for operators.
    public var name: String?
    public var createdAt: Date
    /// Never sent: the server does not record a key's last use (the audit log names the key of
    /// every change it made, `actor.keyId`). Kept so that code that reads it still builds.
    @available(*, deprecated, message: "the server does not record a key's last use; always nil")
    public var lastUsedAt: Date? { nil }

    public init(id: String, role: Role, app: String? = nil, name: String? = nil, createdAt: Date) {
        self.id = id
        self.role = role
        self.app = app
        self.name = name
        self.createdAt = createdAt
    }

    /// The form that took a last use, which the server never records: it is ignored.
    @available(*, deprecated, message: "the server does not record a key's last use; drop lastUsedAt")
    public init(id: String, role: Role, app: String? = nil, name: String? = nil, createdAt: Date, lastUsedAt: Date?) {
        self.init(id: id, role: role, app: app, name: name, createdAt: createdAt)
    }

    private enum CodingKeys: String, CodingKey {
        case id, role, app, name, createdAt
    }

    /// What a key may do (SPEC §6 table).
    public enum Role: String, WireEnum {
        case admin, consent, app, auditor
    }
}
