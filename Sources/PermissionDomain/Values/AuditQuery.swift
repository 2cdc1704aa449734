public import Foundation

/// A filter and keyset page over the audit log (SPEC §5 `GET /v1/audit`): every given field
/// must match; entries come in `seq` order, those with `seq > after` (and `seq < before` when
/// set), at most `limit`; with `newestFirst`, in descending `seq` order (a user's history, newest
/// first, paged by `before`).
///
/// With ``affecting`` the query is an app's own feed (SPEC §6, an app key's `GET /v1/events`):
/// see ``affecting`` for what it holds and how `user`, `service` and `action` narrow it.
public struct AuditQuery: Hashable, Sendable {
    public var user: UserID?
    public var app: AppID?
    public var service: ServiceID?
    public var action: AuditAction?
    /// Entries with `at >= since`.
    public var since: Date?
    /// Entries with `at < until`.
    public var until: Date?
    public var after: Int64
    /// Entries with `seq < before`; nil for no upper bound.
    public var before: Int64?
    /// Descending `seq` order: the newest `limit` entries of the range.
    public var newestFirst: Bool
    public var limit: Int
    /// The app whose own feed this is (SPEC §6: an app key reads "its own events"), instead of
    /// `app`: every entry that can change what the app's status reads return. Those naming the
    /// app, and those that name no app (``AuditQuery/wideActions``):
    /// - a policy for every app (`policy.put`, `policy.deleted` with no app) that names no user,
    ///   or names a user related to the app;
    /// - a custom service's definition (`service.put`: its levels' order and purpose keys decide
    ///   an allow policy's level and `purposeChanged`);
    /// - a user's settings (`settings.changed`: the Location Services switch) of a user related
    ///   to the app;
    /// - a user's erasure (`user.erased`, which names only the user's pseudonym) when the log
    ///   holds an entry about that user naming the app.
    ///
    /// A user is related to the app while they have an authorization record with it (any status)
    /// or a prompt of it (any state: one that expired or was cancelled without a record still
    /// leaves reads the user's switch changes), as the store holds them when the entry is read: an
    /// app learns nothing about a user it has no dealings with. An erasure has deleted both, so its
    /// relation is the log's instead (the app's own entries carry the pseudonym it names).
    ///
    /// `user` and `service` narrow the feed to what changes the app's reads for that user or
    /// service: the entries naming them, and those that change it without naming them. So with
    /// `user`, an entry for every user passes (the app's registration, a policy naming no user,
    /// a service definition), an erasure does not (it names no user); with `service`, an entry
    /// for every service passes (the app's registration, an erasure), and a settings entry for a
    /// service with the Location Services switch (``locationSwitchPasses(service:)``).
    /// `action`, `since` and `until` filter every entry as usual.
    public var affecting: AppID?

    public init(
        user: UserID? = nil, app: AppID? = nil, service: ServiceID? = nil, action: AuditAction? = nil,
        since: Date? = nil, until: Date? = nil, after: Int64 = 0, before: Int64? = nil,
        newestFirst: Bool = false, limit: Int = 100, affecting: AppID? = nil
    ) {
        self.user = user
        self.app = app
        self.service = service
        self.action = action
        self.since = since
        self.until = until
        self.after = after
        self.before = before
        self.newestFirst = newestFirst
        self.limit = limit
        self.affecting = affecting
    }

    /// The actions of the entries that name no app and still change what an app reads
    /// (``affecting``); every other action that changes an authorization names its app.
    public static let wideActions: [AuditAction] = [
        .policyPut, .policyDeleted, .servicePut, .settingsChanged, .userErased,
    ]

    /// Whether a `settings.changed` entry passes a `service` filter of an app's feed: with no
    /// filter, or for a service whose status the Location Services switch changes (location).
    /// Custom services never have the switch.
    public static func locationSwitchPasses(service: ServiceID?) -> Bool {
        guard let service else { return true }
        return Catalogue.builtin(service)?.hasLocationServicesSwitch == true
    }
}
