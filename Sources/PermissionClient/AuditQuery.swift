/// The filters and paging of `GET /v1/audit` (and the filters of `GET /v1/events`); every
/// member is optional and they combine with AND.
public struct AuditQuery: Sendable, Equatable {
    public var user: String?
    public var app: String?
    public var service: String?
    /// An action such as `authorization.revoked`.
    public var action: String?
    /// Entries at or after this instant: RFC 3339, e.g. `2026-11-22T00:00:00.000Z`.
    public var since: String?
    /// Entries before this instant: RFC 3339.
    public var until: String?
    /// Entries with a `seq` greater than this (the previous page's `nextAfter`).
    public var after: Int64?
    /// The `hash` of the entry `after` names, as it was read: when the log's entry there has
    /// another (the server's database was restored from an earlier backup and has grown past
    /// it again), the page fails with `.logDiverged` instead of skipping the new entries.
    public var afterHash: String?
    /// The page size (1-1000).
    public var limit: Int?

    public init(
        user: String? = nil, app: String? = nil, service: String? = nil, action: String? = nil,
        since: String? = nil, until: String? = nil, after: Int64? = nil, afterHash: String? = nil,
        limit: Int? = nil
    ) {
        self.user = user
        self.app = app
        self.service = service
        self.action = action
        self.since = since
        self.until = until
        self.after = after
        self.afterHash = afterHash
        self.limit = limit
    }

    /// The query items in a fixed order.
    var items: [(String, String?)] {
        [
            ("user", user), ("app", app), ("service", service), ("action", action), ("since", since),
            ("until", until), ("after", after.map(String.init)), ("afterHash", afterHash),
            ("limit", limit.map(String.init)),
        ]
    }
}
