public import Foundation

/// One entry of the append-only audit log (SPEC §5), also one event of the change feed.
/// Optional members are absent when they do not apply to the action.
public struct AuditEntry: Codable, Sendable, Equatable {
    /// Gap-free, increasing; the SSE event id.
    public var seq: Int64
    public var at: Date
    public var actor: Actor
    /// What happened, `area.verb` or `area.thing.verb`, e.g. `prompt.answered`, `authorization.revoked`, `policy.put`.
    public var action: String
    public var user: String?
    public var app: String?
    public var service: String?
    /// The authorization before the change.
    public var from: Snapshot?
    /// The authorization after the change.
    public var to: Snapshot?
    /// The reason of the change (an `Authorization.Reason` value for authorization changes).
    public var reason: String?
    public var purpose: String?
    public var promptId: String?
    public var requestId: String?
    /// Further facts of non-authorization changes (a policy id, an app name, a setting ...).
    public var detail: [String: String]?
    /// Hex SHA-256 of `purpose` (UTF-8): the purpose string a decision was made on, provable later.
    public var purposeHash: String?
    /// The previous entry's `hash` (64 zeros for seq 1).
    public var prevHash: String?
    /// The entry's link in the audit hash chain (`GET /v1/audit/verify`), when the server keeps one.
    public var hash: String?
    /// For an entry about a user: the random name of the user's audit key, under which the log
    /// stores the user id and purpose text sealed. The `user.erased` entry names it.
    public var pseudonym: String?
    /// `true` when the entry's user was erased: `user`, `purpose` and `detail` are gone for good.
    public var erased: Bool?

    public init(
        seq: Int64, at: Date, actor: Actor, action: String, user: String? = nil, app: String? = nil,
        service: String? = nil, from: Snapshot? = nil, to: Snapshot? = nil, reason: String? = nil,
        purpose: String? = nil, promptId: String? = nil, requestId: String? = nil,
        detail: [String: String]? = nil, hash: String? = nil, prevHash: String? = nil,
        purposeHash: String? = nil, pseudonym: String? = nil, erased: Bool? = nil
    ) {
        self.seq = seq
        self.at = at
        self.actor = actor
        self.action = action
        self.user = user
        self.app = app
        self.service = service
        self.from = from
        self.to = to
        self.reason = reason
        self.purpose = purpose
        self.promptId = promptId
        self.requestId = requestId
        self.detail = detail
        self.hash = hash
        self.prevHash = prevHash
        self.purposeHash = purposeHash
        self.pseudonym = pseudonym
        self.erased = erased
    }

    /// Who made the change: a key (id and role), or the server itself (`role` `system`), or
    /// `anonymous` where keys are not configured.
    public struct Actor: Codable, Sendable, Equatable {
        public var keyId: String?
        public var role: String

        public init(keyId: String? = nil, role: String) {
            self.keyId = keyId
            self.role = role
        }
    }

    /// The stored authorization on one side of a change.
    public struct Snapshot: Codable, Sendable, Equatable {
        public var status: Authorization.Status
        public var level: String?
        public var provisional: Bool
        public var once: Bool

        public init(status: Authorization.Status, level: String? = nil, provisional: Bool = false, once: Bool = false) {
            self.status = status
            self.level = level
            self.provisional = provisional
            self.once = once
        }
    }
}
