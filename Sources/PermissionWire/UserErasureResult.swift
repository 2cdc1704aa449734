/// The answer to `DELETE /v1/users/{user}` (SPEC §11 Erasure): what was deleted, and the
/// pseudonym the user's audit entries keep, which names no one once their key is destroyed.
public struct UserErasureResult: Codable, Sendable, Equatable {
    /// nil when the audit log held nothing about the user.
    public var pseudonym: String?
    public var authorizations: Int
    public var prompts: Int
    /// Whether the user had settings.
    public var settings: Bool
    /// Policies that named the user.
    public var policies: Int
    public var consentSessions: Int
    /// The seq of the `user.erased` audit entry.
    public var auditSeq: Int64

    public init(
        pseudonym: String?, authorizations: Int, prompts: Int, settings: Bool, policies: Int, consentSessions: Int,
        auditSeq: Int64
    ) {
        self.pseudonym = pseudonym
        self.authorizations = authorizations
        self.prompts = prompts
        self.settings = settings
        self.policies = policies
        self.consentSessions = consentSessions
        self.auditSeq = auditSeq
    }
}
