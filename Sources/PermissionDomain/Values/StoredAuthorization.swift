public import Foundation

/// The stored record of one (user, app, service): the user's or operator's last choice,
/// before policies, the Location Services switch and once-grant lapse are applied (SPEC §3).
/// A reset writes `notDetermined` rather than deleting, so `version` never goes back; only an
/// erasure deletes records, and the store's version floor (``PermissionWriter/versionFloor()``)
/// keeps a record written after it above the versions it deleted.
public struct StoredAuthorization: Hashable, Sendable {
    public let user: UserID
    public let app: AppID
    public let service: ServiceID
    /// `notDetermined`, `denied` or `authorized`; `restricted` only comes from policies.
    public var status: AuthorizationStatus
    /// Present exactly when `status` is `authorized`.
    public var level: Level?
    /// Always granted through "Allow While Using" on an Always request, awaiting the upgrade prompt.
    public var provisional: Bool
    /// An Allow Once grant; `expiresAt` is when it lapses.
    public var once: Bool
    /// When an authorized grant lapses to `notDetermined` (`expired`): an Allow Once grant's
    /// TTL, or the `until` of an expiring grant (SPEC §11); nil for a grant without an end.
    public var expiresAt: Date?
    public var reason: Reason
    /// The purpose string shown in the prompt that decided the record, or nil.
    public var purpose: PurposeString?
    /// The language of `purpose` (one of the app's localizations), nil for the base string.
    public var purposeLanguage: LanguageTag?
    /// The Info.plist key whose text `purpose` is (the prompt's `purposeKey`), so that
    /// re-consent compares it with that key's text now (SPEC §11); nil without a purpose, and
    /// for grants recorded before the key was kept.
    public var purposeKey: String?
    /// Levels the user declined on a prompt for more than was held, or narrowed on the
    /// upgrade prompt: the app is not prompted for them again (SPEC §4). Sorted.
    public var declinedLevels: [Level]
    /// The user confirmed the app's location button (answered its prompt with Allow Once,
    /// SPEC §11): each later press grants Allow Once without a prompt. Kept when a grant lapses
    /// or is changed in settings; cleared by a reset and by the app's reinstall.
    public var buttonConfirmed: Bool
    /// When the record last changed; nil until first written.
    public var updatedAt: Date?
    /// Grows with every change; 0 for a record not stored (never written, or erased).
    public var version: Int64

    public init(
        user: UserID, app: AppID, service: ServiceID, status: AuthorizationStatus = .notDetermined,
        level: Level? = nil, provisional: Bool = false, once: Bool = false, expiresAt: Date? = nil,
        reason: Reason = .default, purpose: PurposeString? = nil, purposeLanguage: LanguageTag? = nil,
        purposeKey: String? = nil, declinedLevels: [Level] = [], buttonConfirmed: Bool = false,
        updatedAt: Date? = nil, version: Int64 = 0
    ) {
        self.user = user
        self.app = app
        self.service = service
        self.status = status
        self.level = level
        self.provisional = provisional
        self.once = once
        self.expiresAt = expiresAt?.truncatedToMilliseconds
        self.reason = reason
        self.purpose = purpose
        self.purposeLanguage = purposeLanguage
        self.purposeKey = purposeKey
        self.declinedLevels = declinedLevels.count > 1 ? declinedLevels.sorted() : declinedLevels  // no copy for 0 or 1
        self.buttonConfirmed = buttonConfirmed
        self.updatedAt = updatedAt?.truncatedToMilliseconds
        self.version = version
    }

    /// A record never written: notDetermined, `default`, version 0.
    public static func initial(user: UserID, app: AppID, service: ServiceID) -> StoredAuthorization {
        StoredAuthorization(user: user, app: app, service: service)
    }

    public var key: AuthorizationKey { AuthorizationKey(user: user, app: app, service: service) }

    /// Whether the grant has lapsed at `now`: authorized with `expiresAt <= now` (an Allow
    /// Once grant or an expiring grant, SPEC §11).
    public func lapsed(at now: Date) -> Bool {
        guard status == .authorized, let expiresAt else { return false }
        return expiresAt <= now
    }

    /// The flags an audit entry records.
    public var snapshot: AuthorizationSnapshot {
        AuthorizationSnapshot(status: status, level: level, provisional: provisional, once: once)
    }

    /// Whether `other` differs in anything but `updatedAt` and `version`.
    func differsInContent(from other: StoredAuthorization) -> Bool {
        status != other.status || level != other.level || provisional != other.provisional || once != other.once
            || expiresAt != other.expiresAt || reason != other.reason || purpose != other.purpose
            || purposeLanguage != other.purposeLanguage || purposeKey != other.purposeKey
            || declinedLevels != other.declinedLevels || buttonConfirmed != other.buttonConfirmed
    }
}
