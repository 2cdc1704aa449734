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
    public var lastUsedAt: Date?

    public init(id: String, role: Role, app: String? = nil, name: String? = nil, createdAt: Date, lastUsedAt: Date? = nil) {
        self.id = id
        self.role = role
        self.app = app
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// What a key may do (SPEC §6 table).
    public enum Role: String, WireEnum {
        case admin, consent, app, auditor
    }
}
