/// What erasing a user deleted (GDPR Art. 17, SPEC §11 Erasure).
public struct UserErasure: Equatable, Sendable {
    /// The pseudonym the user's audit entries keep (nil when the log held nothing about them).
    public var pseudonym: String?
    public var authorizations: Int
    public var prompts: Int
    /// Whether the user had settings.
    public var settings: Bool
    /// Policies that named the user.
    public var policies: Int
    public var consentSessions: Int
    /// Location alert schedules: one per app whose background uses of location were kept.
    public var locationAlerts: Int
    /// The seq of the `user.erased` entry (0 before it is appended).
    public var seq: Int64

    public init(
        pseudonym: String?, authorizations: Int, prompts: Int, settings: Bool, policies: Int, consentSessions: Int,
        locationAlerts: Int, seq: Int64 = 0
    ) {
        self.pseudonym = pseudonym
        self.authorizations = authorizations
        self.prompts = prompts
        self.settings = settings
        self.policies = policies
        self.consentSessions = consentSessions
        self.locationAlerts = locationAlerts
        self.seq = seq
    }

    /// Nothing was stored about the user: there is nothing to erase.
    public var isEmpty: Bool {
        pseudonym == nil && authorizations == 0 && prompts == 0 && !settings && policies == 0 && consentSessions == 0
            && locationAlerts == 0
    }

    /// The `detail` of the `user.erased` entry: the pseudonym and the counts, never the user.
    var auditDetail: [String: String] {
        var detail = [
            "authorizations": String(authorizations), "prompts": String(prompts), "settings": settings ? "1" : "0",
            "policies": String(policies), "consentSessions": String(consentSessions),
            "locationAlerts": String(locationAlerts),
        ]
        detail["pseudonym"] = pseudonym
        return detail
    }
}
