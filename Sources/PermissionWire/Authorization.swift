public import Foundation

/// One authorization as the API returns it (SPEC §3): the effective status of a (user, app,
/// service), with `level` present only when authorized and `expiresAt` / `purpose` always
/// present (`null` when not set).
///
/// Served on the hot path: `jsonBytes(into:)` writes it by hand, byte-identical to
/// `WireEncoder.encode(self)` (sorted keys).
public struct Authorization: Codable, Sendable, Equatable {
    public var user: String
    public var app: String
    public var service: String
    public var status: Status
    /// The granted level; present only when `status` is `authorized`.
    public var level: String?
    /// An Always grant given through "Allow While Using" that awaits the upgrade prompt.
    public var provisional: Bool
    /// An Allow Once grant.
    public var once: Bool
    /// When an Allow Once grant lapses; `null` otherwise.
    public var expiresAt: Date?
    public var reason: Reason
    /// The purpose string shown in the prompt that decided this authorization, or `null`.
    public var purpose: String?
    /// The language tag of `purpose` when it was a translation; absent for the base string.
    public var purposeLanguage: String?
    /// `true` for a grant given under a purpose string the app has since changed (SPEC §11);
    /// absent otherwise.
    public var purposeChanged: Bool?
    public var updatedAt: Date
    /// Grows with every change of the stored record; never goes back.
    public var version: Int64

    public init(
        user: String, app: String, service: String, status: Status, level: String? = nil,
        provisional: Bool = false, once: Bool = false, expiresAt: Date? = nil, reason: Reason,
        purpose: String? = nil, purposeLanguage: String? = nil, purposeChanged: Bool? = nil, updatedAt: Date,
        version: Int64
    ) {
        self.user = user
        self.app = app
        self.service = service
        self.status = status
        self.level = level
        self.provisional = provisional
        self.once = once
        self.expiresAt = expiresAt
        self.reason = reason
        self.purpose = purpose
        self.purposeLanguage = purposeLanguage
        self.purposeChanged = purposeChanged
        self.updatedAt = updatedAt
        self.version = version
    }

    private enum CodingKeys: String, CodingKey {
        case user, app, service, status, level, provisional, once, expiresAt, reason, purpose, purposeLanguage, purposeChanged
        case updatedAt, version
    }

    /// Encodes `level`, `purposeChanged` and `purposeLanguage` only when present, and `expiresAt` and `purpose`
    /// always (as `null`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(user, forKey: .user)
        try c.encode(app, forKey: .app)
        try c.encode(service, forKey: .service)
        try c.encode(status, forKey: .status)
        try c.encodeIfPresent(level, forKey: .level)
        try c.encode(provisional, forKey: .provisional)
        try c.encode(once, forKey: .once)
        if let expiresAt { try c.encode(expiresAt, forKey: .expiresAt) } else { try c.encodeNil(forKey: .expiresAt) }
        try c.encode(reason, forKey: .reason)
        if let purpose { try c.encode(purpose, forKey: .purpose) } else { try c.encodeNil(forKey: .purpose) }
        try c.encodeIfPresent(purposeChanged, forKey: .purposeChanged)
        try c.encodeIfPresent(purposeLanguage, forKey: .purposeLanguage)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encode(version, forKey: .version)
    }
}
