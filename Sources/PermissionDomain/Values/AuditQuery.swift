public import Foundation

/// A filter and keyset page over the audit log (SPEC §5 `GET /v1/audit`): every given field
/// must match; entries come in `seq` order, those with `seq > after` (and `seq < before` when
/// set), at most `limit`; with `newestFirst`, in descending `seq` order (a user's history, newest
/// first, paged by `before`).
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

    public init(
        user: UserID? = nil, app: AppID? = nil, service: ServiceID? = nil, action: AuditAction? = nil,
        since: Date? = nil, until: Date? = nil, after: Int64 = 0, before: Int64? = nil,
        newestFirst: Bool = false, limit: Int = 100
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
    }
}
