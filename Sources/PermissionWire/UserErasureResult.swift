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
    /// Location alert schedules (one per app whose background uses of location were kept); 0
    /// from a server that does not say.
    public var locationAlerts: Int
    /// The seq of the `user.erased` audit entry.
    public var auditSeq: Int64

    public init(
        pseudonym: String?, authorizations: Int, prompts: Int, settings: Bool, policies: Int, consentSessions: Int,
        locationAlerts: Int = 0, auditSeq: Int64
    ) {
        self.pseudonym = pseudonym
        self.authorizations = authorizations
        self.prompts = prompts
        self.settings = settings
        self.policies = policies
        self.consentSessions = consentSessions
        self.locationAlerts = locationAlerts
        self.auditSeq = auditSeq
    }

    private enum CodingKeys: String, CodingKey {
        case pseudonym, authorizations, prompts, settings, policies, consentSessions, locationAlerts, auditSeq
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pseudonym = try container.decodeIfPresent(String.self, forKey: .pseudonym)
        authorizations = try container.decode(Int.self, forKey: .authorizations)
        prompts = try container.decode(Int.self, forKey: .prompts)
        settings = try container.decode(Bool.self, forKey: .settings)
        policies = try container.decode(Int.self, forKey: .policies)
        consentSessions = try container.decode(Int.self, forKey: .consentSessions)
        locationAlerts = try container.decodeIfPresent(Int.self, forKey: .locationAlerts) ?? 0
        auditSeq = try container.decode(Int64.self, forKey: .auditSeq)
    }
}
