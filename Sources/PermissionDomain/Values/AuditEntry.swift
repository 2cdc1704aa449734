public import Foundation

/// One change, as the audit log keeps it (SPEC §5). Entries are never updated or deleted.
public struct AuditEntry: Hashable, Sendable {
    /// Gap-free and increasing; assigned by `PermissionWriter.append` (0 before that).
    public var seq: Int64
    public let at: Date
    public let actor: Actor
    public let action: AuditAction
    public let user: UserID?
    public let app: AppID?
    public let service: ServiceID?
    /// The authorization before and after the change, for authorization changes.
    public let from: AuthorizationSnapshot?
    public let to: AuthorizationSnapshot?
    public let reason: Reason?
    public let purpose: PurposeString?
    public let promptId: PromptID?
    public let requestId: String?
    /// Further facts of non-authorization changes, e.g. `policy`, `effect`, `level`, `name`,
    /// `locationServicesEnabled`, `kind`, `choice`, `state`. Small, flat, string-valued.
    public let detail: [String: String]
    /// Hex SHA-256 of `purpose`'s UTF-8 bytes, so consent can be proven later (GDPR Art. 7(1));
    /// set by the store that keeps the entry.
    public var purposeHash: String?
    /// The hash of the previous entry (64 zeros for the first), set by the store's hash chain.
    public var prevHash: String?
    /// This entry's hash in the audit hash chain (hex SHA-256 of its canonical encoding), set
    /// by the store.
    public var hash: String?
    /// For an entry about a user, as read back from a store: the random name of the user's
    /// key under which its personal fields are stored (SPEC §12). An erasure names it.
    public var pseudonym: String?
    /// Read back from a store: the entry was about a user whose personal data was erased, so
    /// `user`, `purpose` and `detail` are empty (their key is destroyed) and only ``pseudonym`` remains.
    public var personalDataErased: Bool

    public init(
        seq: Int64 = 0, at: Date, actor: Actor, action: AuditAction, user: UserID? = nil, app: AppID? = nil,
        service: ServiceID? = nil, from: AuthorizationSnapshot? = nil, to: AuthorizationSnapshot? = nil,
        reason: Reason? = nil, purpose: PurposeString? = nil, promptId: PromptID? = nil,
        requestId: String? = nil, detail: [String: String] = [:], purposeHash: String? = nil,
        prevHash: String? = nil, hash: String? = nil, pseudonym: String? = nil, personalDataErased: Bool = false
    ) {
        self.seq = seq
        self.at = at.truncatedToMilliseconds
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
        self.purposeHash = purposeHash
        self.prevHash = prevHash
        self.hash = hash
        self.pseudonym = pseudonym
        self.personalDataErased = personalDataErased
    }
}
