/// `context` of an AuthZEN decision (SPEC §11): the effective authorization behind it, as the
/// status read shows it.
public struct AccessDecisionContext: Codable, Equatable, Sendable {
    /// `notDetermined`, `restricted`, `denied` or `authorized`.
    public var status: String
    /// Why it has that status (`default`, `userConsent`, `policy`, ...).
    public var reason: String
    /// The level granted, present exactly when `status` is `authorized`.
    public var level: String?
    /// True exactly when `status` is `notDetermined`: the app's next request would prompt.
    public var promptRequired: Bool

    public init(status: String, reason: String, level: String?, promptRequired: Bool) {
        self.status = status
        self.reason = reason
        self.level = level
        self.promptRequired = promptRequired
    }

    enum CodingKeys: String, CodingKey {
        case status, reason, level
        case promptRequired = "prompt_required"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(reason, forKey: .reason)
        try container.encode(level, forKey: .level)  // null when not authorized, as on the wire
        try container.encode(promptRequired, forKey: .promptRequired)
    }
}
