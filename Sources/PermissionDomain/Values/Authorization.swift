import ByteText
public import Foundation

/// The effective authorization returned to clients (SPEC §3): the stored record with
/// policies, the Location Services switch and once-grant lapse applied, plus an entity-tag.
public struct Authorization: Hashable, Sendable {
    public let user: UserID
    public let app: AppID
    public let service: ServiceID
    public let status: AuthorizationStatus
    /// Present exactly when `status` is `authorized`.
    public let level: Level?
    public let provisional: Bool
    public let once: Bool
    public let expiresAt: Date?
    public let reason: Reason
    public let purpose: PurposeString?
    /// The language of `purpose`, nil for the base string (or no purpose).
    public let purposeLanguage: LanguageTag?
    /// A grant whose `purpose` is no longer what the app shows for the service in that language
    /// (``Rules/purposeChanged(stored:service:app:)``, SPEC §11); false for anything else.
    public let purposeChanged: Bool
    /// When the stored record last changed; nil for a record never written.
    public let updatedAt: Date?
    /// The stored record's version; 0 for a record never written.
    public let version: Int64
    /// A strong entity-tag with its double quotes: `"<version>-<16 hex digits>"`, the digest
    /// covering every field, so it changes whenever the representation does (SPEC §3 ETag).
    public let etag: String

    public init(
        user: UserID, app: AppID, service: ServiceID, status: AuthorizationStatus, level: Level?,
        provisional: Bool, once: Bool, expiresAt: Date?, reason: Reason, purpose: PurposeString?,
        purposeLanguage: LanguageTag? = nil, purposeChanged: Bool = false, updatedAt: Date?, version: Int64
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
        var digest = Digest()
        digest.add(user.rawValue)
        digest.add(app.rawValue)
        digest.add(service.rawValue)
        digest.add(status.rawValue)
        digest.add(level?.rawValue)
        digest.add(provisional ? 1 : 0)
        digest.add(once ? 1 : 0)
        digest.add(expiresAt.map { $0.millisecondsSince1970 } ?? -1)
        digest.add(reason.rawValue)
        digest.add(purpose?.rawValue)
        // Only when set, so that the entity-tags of records without one stay as they were.
        if let purposeLanguage { digest.add(purposeLanguage.rawValue) }
        // The app's purpose string changes without the record: the tag must change with it.
        if purposeChanged { digest.add("purposeChanged") }
        digest.add(updatedAt.map { $0.millisecondsSince1970 } ?? -1)
        etag = Self.entityTag(version: version, digest: digest.value)
    }

    /// The view of a stored record taken as it is (no policy, switch or lapse applies).
    public init(stored: StoredAuthorization) {
        self.init(
            user: stored.user, app: stored.app, service: stored.service, status: stored.status,
            level: stored.status == .authorized ? stored.level : nil, provisional: stored.provisional,
            once: stored.once, expiresAt: stored.expiresAt, reason: stored.reason, purpose: stored.purpose,
            purposeLanguage: stored.purposeLanguage, updatedAt: stored.updatedAt, version: stored.version)
    }

    public var key: AuthorizationKey { AuthorizationKey(user: user, app: app, service: service) }

    /// This view with ``purposeChanged`` set to `changed` (its entity-tag follows).
    public func with(purposeChanged changed: Bool) -> Authorization {
        guard changed != purposeChanged else { return self }
        return Authorization(
            user: user, app: app, service: service, status: status, level: level, provisional: provisional,
            once: once, expiresAt: expiresAt, reason: reason, purpose: purpose, purposeLanguage: purposeLanguage,
            purposeChanged: changed, updatedAt: updatedAt, version: version)
    }

    /// The flags an audit entry records.
    public var snapshot: AuthorizationSnapshot {
        AuthorizationSnapshot(status: status, level: level, provisional: provisional, once: once)
    }

    /// `"<version>-<16 hex digits>"`, quotes included, written in place (hot path).
    private static func entityTag(version: Int64, digest: UInt64) -> String {
        ByteCursor.string { tag in
            tag.literal("\"")
            tag.decimal(version)
            tag.literal("-")
            tag.hex(digest)
            tag.literal("\"")
        }
    }
}
