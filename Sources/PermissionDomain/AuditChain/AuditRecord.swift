/// One audit entry as a store keeps it: the 24 hashed columns of ``AuditChain`` in their stored
/// form (times as Unix milliseconds, booleans as 0/1, `detail` as ``DetailJSON`` text), plus the
/// entry's `hash`.
///
/// A store persists these values as they are and reads them back as they are, so that a row
/// edited outside the program is hashed as it now stands (an integer column may then hold any
/// value, and every column but `seq` and `at` may be NULL).
public struct AuditRecord: Equatable, Sendable {
    package var seq: Int64
    package var at: Int64
    package var actorKey: String?
    package var actorRole: String?
    package var action: String?
    package var user: String?
    package var app: String?
    package var service: String?
    package var fromStatus: String?
    package var fromLevel: String?
    package var fromProvisional: Int64?
    package var fromOnce: Int64?
    package var toStatus: String?
    package var toLevel: String?
    package var toProvisional: Int64?
    package var toOnce: Int64?
    package var reason: String?
    package var purpose: String?
    package var purposeHash: String?
    package var promptId: String?
    package var requestId: String?
    package var detail: String?
    /// For an entry about a user: its ``PersonalFields`` sealed under the user's key (then
    /// `user` holds the user's pseudonym, and `purpose` and `detail` are NULL); NULL otherwise.
    package var personal: String?
    package var prevHash: String?
    /// Not hashed: the hash of the other fields (``AuditChain/hash(of:)``).
    package var hash: String?

    package init(
        seq: Int64, at: Int64, actorKey: String? = nil, actorRole: String? = nil, action: String? = nil,
        user: String? = nil, app: String? = nil, service: String? = nil, fromStatus: String? = nil,
        fromLevel: String? = nil, fromProvisional: Int64? = nil, fromOnce: Int64? = nil, toStatus: String? = nil,
        toLevel: String? = nil, toProvisional: Int64? = nil, toOnce: Int64? = nil, reason: String? = nil,
        purpose: String? = nil, purposeHash: String? = nil, promptId: String? = nil, requestId: String? = nil,
        detail: String? = nil, personal: String? = nil, prevHash: String? = nil, hash: String? = nil
    ) {
        self.seq = seq
        self.at = at
        self.actorKey = actorKey
        self.actorRole = actorRole
        self.action = action
        self.user = user
        self.app = app
        self.service = service
        self.fromStatus = fromStatus
        self.fromLevel = fromLevel
        self.fromProvisional = fromProvisional
        self.fromOnce = fromOnce
        self.toStatus = toStatus
        self.toLevel = toLevel
        self.toProvisional = toProvisional
        self.toOnce = toOnce
        self.reason = reason
        self.purpose = purpose
        self.purposeHash = purposeHash
        self.promptId = promptId
        self.requestId = requestId
        self.detail = detail
        self.personal = personal
        self.prevHash = prevHash
        self.hash = hash
    }

    /// The stored form of `entry` as entry `seq`, before it is hashed (`hash` nil).
    /// - Parameters:
    ///   - entry: the change; its own `seq`, `purposeHash`, `prevHash` and `hash` are ignored.
    ///   - seq: the seq it is appended as.
    ///   - purposeHash: the hash of `entry.purpose` (``AuditChain/purposeHash(of:)``).
    ///   - prevHash: the previous entry's hash.
    package init(entry: AuditEntry, seq: Int64, purposeHash: String?, prevHash: String) {
        self.init(
            seq: seq, at: entry.at.millisecondsSince1970, actorKey: entry.actor.keyId, actorRole: entry.actor.role,
            action: entry.action.rawValue, user: entry.user?.rawValue, app: entry.app?.rawValue,
            service: entry.service?.rawValue, fromStatus: entry.from?.status.rawValue,
            fromLevel: entry.from?.level?.rawValue, fromProvisional: entry.from.map { $0.provisional ? 1 : 0 },
            fromOnce: entry.from.map { $0.once ? 1 : 0 }, toStatus: entry.to?.status.rawValue,
            toLevel: entry.to?.level?.rawValue, toProvisional: entry.to.map { $0.provisional ? 1 : 0 },
            toOnce: entry.to.map { $0.once ? 1 : 0 }, reason: entry.reason?.rawValue, purpose: entry.purpose?.rawValue,
            purposeHash: purposeHash, promptId: entry.promptId?.rawValue, requestId: entry.requestId,
            detail: DetailJSON.encode(entry.detail), prevHash: prevHash)
    }

    /// The personal fields this record stores in clear (before ``seal(_:)``), nil when it is
    /// about no user.
    package var personalFields: PersonalFields? {
        user.map { PersonalFields(user: $0, purpose: purpose, detail: detail) }
    }

    /// Replaces the personal fields with their sealed form: `user` becomes the pseudonym,
    /// `purpose` and `detail` NULL, `personal` the ciphertext. The purpose hash stays: it names
    /// the text, not the person.
    package mutating func seal(_ sealed: SealedPersonalFields) {
        user = sealed.pseudonym
        purpose = nil
        detail = nil
        personal = sealed.ciphertext
    }
}
