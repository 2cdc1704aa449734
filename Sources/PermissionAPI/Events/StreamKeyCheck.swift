import PermissionDomain

/// Keeps an event stream from outliving its key (SPEC §6): the stream asks `isStillValid()`
/// before every write, and it reads the key again from the store when this process has
/// revoked a key since the last look (`KeyAuthenticator.revocations` moved), every
/// ``staleInterval`` while the store's memory is not trusted (a PostgreSQL replica that cannot
/// read the change log, which tells of other replicas' revocations), and at least every
/// `KeyAuthenticator.cacheTTL` otherwise, for a revocation by another process (the
/// `keys revoke` subcommand), which the key cache only notices within that time as well.
///
/// Ask after reading a page and before writing it: `DELETE /v1/keys/{id}` moves the count
/// before it answers, so an entry committed after that answer is in a page read after the
/// count moved, and the page is never written.
struct StreamKeyCheck {
    private let key: String?
    private let authenticator: KeyAuthenticator
    private var revocations: Int
    private var due: ContinuousClock.Instant
    private var lastLook: ContinuousClock.Instant?
    /// How often the key is read while the store's memory is not trusted: often enough that a
    /// revocation elsewhere ends the stream within about a second, rarely enough that every
    /// stream's wake-ups do not each read the database when it may be struggling.
    static let staleInterval: Duration = .milliseconds(100)

    /// - Parameters:
    ///   - principal: the stream's caller; without a key id (no keys in use) there is nothing
    ///     to check.
    ///   - authenticator: the one revocations through the API invalidate.
    init(principal: Principal, authenticator: KeyAuthenticator) {
        key = principal.actor.keyId
        self.authenticator = authenticator
        revocations = authenticator.revocations
        due = .now  // the first look reads the store: the key may have come from the cache
    }

    /// Whether the key is still active; false ends the stream.
    /// - Throws: when the store cannot be read.
    mutating func isStillValid(now: ContinuousClock.Instant = .now) throws -> Bool {
        guard let key else { return true }
        let current = authenticator.revocations
        let staleLookDue = lastLook.map { now - $0 >= Self.staleInterval } ?? true
        guard current != revocations || now >= due || (staleLookDue && !authenticator.memoryIsFresh()) else {
            return true
        }
        // Taken before the read, so that a revocation during it is looked at next time.
        revocations = current
        lastLook = now
        due = now.advanced(by: authenticator.cacheTTL)
        guard KeyID.isValid(key) else { return false }
        return try authenticator.service.key(id: KeyID(trusted: key))?.isActive ?? false
    }
}
