public import Foundation

/// A consent session as stored (SPEC §10): a browser's access to one user's side of the
/// service, opened by a one-time link. Only hashes of its secrets are kept: the SHA-256 of the
/// link's token, and after the exchange the SHA-256 of the cookie's session secret and of the
/// session's CSRF token. It lasts from `createdAt` to `expiresAt`, which only its user moves
/// later, up to ``maxLifetimeFactor`` TTLs after `createdAt`, and ends sooner when `endedAt` is set.
public struct ConsentSession: Hashable, Sendable {
    public let id: ConsentSessionID
    /// The user the session acts for; it reaches nothing of anyone else.
    public let user: UserID
    /// SHA-256 of the link's one-time token (32 bytes).
    public let tokenHash: [UInt8]
    /// SHA-256 of the cookie's session secret (32 bytes); nil before the exchange.
    public var secretHash: [UInt8]?
    /// SHA-256 of the session's CSRF token (32 bytes), which every form carries; nil before
    /// the exchange.
    public var csrfHash: [UInt8]?
    public let createdAt: Date
    /// The end of the session's life: `--consent-session-ttl` after creation, or after the
    /// user last asked to stay signed in (``PermissionService/extendConsentSession(id:actor:requestId:)``).
    public private(set) var expiresAt: Date
    /// When the token was exchanged for the cookie; a token is exchanged once at most.
    public var exchangedAt: Date?
    /// When the session was ended (an operator's `DELETE`, or the user's logout).
    public var endedAt: Date?

    /// Validates the hashes' lengths and the times.
    /// - Throws: `PermissionError.invalidArgument` when a hash is not 32 bytes or the session
    ///   would end before it begins.
    public init(
        id: ConsentSessionID, user: UserID, tokenHash: [UInt8], secretHash: [UInt8]? = nil, csrfHash: [UInt8]? = nil,
        createdAt: Date, expiresAt: Date, exchangedAt: Date? = nil, endedAt: Date? = nil
    ) throws(PermissionError) {
        for (field, hash) in [("tokenHash", tokenHash), ("secretHash", secretHash), ("csrfHash", csrfHash)] {
            if let hash, hash.count != 32 { throw .invalidArgument(field: field, why: "must be 32 bytes") }
        }
        let exchanged = exchangedAt != nil
        guard [secretHash, csrfHash].allSatisfy({ ($0 != nil) == exchanged }) else {
            throw .invalidCombination(field: "exchangedAt", why: "the secret and CSRF hashes come with the exchange")
        }
        guard expiresAt > createdAt else { throw .invalidArgument(field: "expiresAt", why: "must be after createdAt") }
        self.init(
            trusted: id, user: user, tokenHash: tokenHash, secretHash: secretHash, csrfHash: csrfHash,
            createdAt: createdAt, expiresAt: expiresAt, exchangedAt: exchangedAt, endedAt: endedAt)
    }

    /// Wraps values already validated (read back from the store); not for input.
    package init(
        trusted id: ConsentSessionID, user: UserID, tokenHash: [UInt8], secretHash: [UInt8]?, csrfHash: [UInt8]?,
        createdAt: Date, expiresAt: Date, exchangedAt: Date?, endedAt: Date?
    ) {
        self.id = id
        self.user = user
        self.tokenHash = tokenHash
        self.secretHash = secretHash
        self.csrfHash = csrfHash
        self.createdAt = createdAt.truncatedToMilliseconds
        self.expiresAt = expiresAt.truncatedToMilliseconds
        self.exchangedAt = exchangedAt?.truncatedToMilliseconds
        self.endedAt = endedAt?.truncatedToMilliseconds
    }

    /// Equal when every field is; the hashes are compared in constant time
    /// (`ConstantTime.equal`), as everywhere a secret's hash is compared.
    public static func == (lhs: ConsentSession, rhs: ConsentSession) -> Bool {
        // Every field is compared whatever the others hold, the hashes included.
        let tokens = ConstantTime.equal(lhs.tokenHash, rhs.tokenHash)
        let secrets = Self.same(lhs.secretHash, rhs.secretHash)
        let csrf = Self.same(lhs.csrfHash, rhs.csrfHash)
        return tokens && secrets && csrf && lhs.id == rhs.id && lhs.user == rhs.user && lhs.createdAt == rhs.createdAt
            && lhs.expiresAt == rhs.expiresAt && lhs.exchangedAt == rhs.exchangedAt && lhs.endedAt == rhs.endedAt
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Two optional hashes: both absent, or both present with the same bytes.
    private static func same(_ lhs: [UInt8]?, _ rhs: [UInt8]?) -> Bool {
        let bytes = ConstantTime.equal(lhs ?? [], rhs ?? [])
        return bytes && (lhs == nil) == (rhs == nil)
    }

    /// Whether the session acts at `now`: exchanged, not ended, not expired.
    public func isLive(at now: Date) -> Bool {
        exchangedAt != nil && endedAt == nil && now < expiresAt
    }

    /// Where the session stands at `now`: ended (before its time ran out) comes first, then
    /// expired, then open once its link was exchanged.
    public func state(at now: Date) -> State {
        if let endedAt, endedAt < expiresAt { return .ended }
        if now >= expiresAt { return .expired }
        return exchangedAt == nil ? .unopened : .open
    }

    /// `unopened`: the link waits for its first visit; `open`: its cookie acts for the user;
    /// `ended`: ended before its time; `expired`: its time ran out, opened or not.
    public enum State: String, Sendable, CaseIterable {
        case unopened, open, ended, expired
    }

    /// How many TTLs after its creation a session may last at most, however often its user asks
    /// to stay signed in: more than ten extensions of a full TTL each (WCAG 2.2.1 Timing
    /// Adjustable), and still an end.
    public static let maxLifetimeFactor = 12

    /// What asking to stay signed in at `now` does to a session whose TTL is `ttl`.
    public enum Extension: Equatable, Sendable {
        /// The end moves to this date: `ttl` from `now`, at most ``maxLifetimeFactor`` TTLs
        /// after creation.
        case to(Date)
        /// Nothing yet: more than ``warningLead`` is left and the end would move by less than a
        /// quarter of the TTL, or by less than a second (asked again just after an extension),
        /// so that repeated presses add no audit entry each.
        case notYet
        /// Nothing: the session already ends at its limit.
        case atLimit
    }

    /// What an extension at `now` does (``Extension``).
    /// - Precondition: the session is live at `now` (the caller refuses any other state first).
    public func extending(at now: Date, ttl: TimeInterval) -> Extension {
        precondition(isLive(at: now), "only a live session is extended")
        let limit = createdAt.addingTimeInterval(ttl * Double(Self.maxLifetimeFactor)).truncatedToMilliseconds
        guard expiresAt < limit else { return .atLimit }
        let end = min(now.addingTimeInterval(ttl), limit).truncatedToMilliseconds
        let move = end.timeIntervalSince(expiresAt)
        // Within the warning, any move of a second or more (a short TTL is always within it);
        // before it, only one worth an entry; a last step to the limit always.
        // With a few seconds' slack: the page counts from when it was made.
        let warned = expiresAt.timeIntervalSince(now) <= Self.warningLead + 10
        guard end == limit || move >= (warned ? 1 : max(1, ttl / 4)) else { return .notYet }
        return .to(end)
    }

    /// How long before a session's end its pages warn that it ends and offer to stay signed in
    /// (WCAG 2.2.1: at least 20 seconds to answer).
    public static let warningLead: TimeInterval = 120

    /// The session ending at `end` instead.
    /// - Precondition: `end` is later than ``expiresAt``: a session's end only moves later.
    public func ending(at end: Date) -> ConsentSession {
        precondition(end > expiresAt, "a consent session's end only moves later")
        var copy = self
        copy.expiresAt = end.truncatedToMilliseconds
        return copy
    }

    /// The actor of the changes made through the session (SPEC §5, §10): its id, role `user`.
    public var actor: Actor { Actor(keyId: id.rawValue, role: Role.user.rawValue) }
}
