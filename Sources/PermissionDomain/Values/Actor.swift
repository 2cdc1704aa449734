/// Who made a change, as the audit log records it (SPEC §5 `actor`: key id and role).
public struct Actor: Hashable, Sendable {
    /// The API key's id; nil for the server itself or before keys exist.
    public let keyId: String?
    /// `admin`, `consent`, `app`, `auditor`, `anonymous` (no keys configured) or `system`.
    public let role: String

    public init(keyId: String?, role: String) {
        self.keyId = keyId
        self.role = role
    }

    /// The server itself, for changes that time makes (SPEC §5).
    public static let system = Actor(keyId: nil, role: "system")
    /// A caller without a key, while no keys exist.
    public static let anonymous = Actor(keyId: nil, role: "anonymous")
}
