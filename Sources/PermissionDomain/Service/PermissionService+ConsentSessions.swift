import Foundation

/// Consent sessions (SPEC §10): a one-time link made by an operator or the consent backend,
/// exchanged once for a browser session bound to one user, ended at its expiry or sooner. The
/// caller makes the random token, secret and CSRF token and passes their SHA-256 (the domain
/// does no crypto). Creation and ending are audited, naming the user and the session, never a
/// secret; the exchange changes only the session's own row, which no read model keeps.
extension PermissionService {
    /// Stores a new session for `user`, lasting `configuration.consentSessionTTL` from now, and
    /// audits `consent.session.created`.
    /// - Parameters:
    ///   - id: the session's id (random, made by the caller).
    ///   - tokenHash: SHA-256 of the link's one-time token.
    /// - Throws: `PermissionError.invalidArgument` (a hash that is not 32 bytes), `.conflict`
    ///   when the id or the token hash is taken.
    public func createConsentSession(
        id: ConsentSessionID, user: UserID, tokenHash: [UInt8], actor: Actor, requestId: String?
    ) throws -> ConsentSession {
        try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            let session = try ConsentSession(
                id: id, user: user, tokenHash: tokenHash, createdAt: context.now,
                expiresAt: context.now.addingTimeInterval(configuration.consentSessionTTL))
            let taken = try writer.consentSession(id: id) != nil || writer.consentSession(tokenHash: tokenHash) != nil
            guard !taken else { throw PermissionError.conflict(why: "consent session \(id) exists") }
            try writer.save(session)
            try writer.append(
                AuditEntry(
                    at: context.now, actor: context.actor, action: .consentSessionCreated, user: user,
                    requestId: context.requestId,
                    detail: ["session": id.rawValue, "expiresAt": String(session.expiresAt.millisecondsSince1970)]))
            return session
        }
    }

    /// Exchanges a link's token for the session, once: in one write, the session found by
    /// `tokenHash` gets the cookie secret's and the CSRF token's hashes and `exchangedAt`, so
    /// that of two concurrent visits of one link exactly one opens the session. A token that
    /// opens nothing (unknown, used, ended, expired) is told by a read: anyone may send one,
    /// and none may take a place in the write queue, which every change waits in.
    /// - Parameters:
    ///   - tokenHash: SHA-256 of the token the link carried.
    ///   - secretHash: SHA-256 of the new cookie secret.
    ///   - csrfHash: SHA-256 of the session's CSRF token.
    /// - Throws: `ConsentSessionError` (unknown, already used, expired, ended); store errors.
    public func exchangeConsentToken(
        tokenHash: [UInt8], secretHash: [UInt8], csrfHash: [UInt8]
    ) throws
        -> ConsentSession
    {
        try Self.checkExchangeable(try store.read { try $0.consentSession(tokenHash: tokenHash) }, tokenHash, now: now)
        return try store.write { writer in
            let now = self.now
            let found = try Self.checkExchangeable(try writer.consentSession(tokenHash: tokenHash), tokenHash, now: now)
            let session = try ConsentSession(
                id: found.id, user: found.user, tokenHash: found.tokenHash, secretHash: secretHash, csrfHash: csrfHash,
                createdAt: found.createdAt, expiresAt: found.expiresAt, exchangedAt: now)
            try writer.save(session)
            return session
        }
    }

    /// `found`, when its link may still open it: known (compared in constant time), not used,
    /// not ended, not expired.
    /// - Throws: the ``ConsentSessionError`` that says why not.
    @discardableResult
    private static func checkExchangeable(_ found: ConsentSession?, _ tokenHash: [UInt8], now: Date) throws -> ConsentSession {
        guard let found, ConstantTime.equal(found.tokenHash, tokenHash) else { throw ConsentSessionError.unknownToken }
        guard found.exchangedAt == nil else { throw ConsentSessionError.alreadyUsed }
        guard found.endedAt == nil else { throw ConsentSessionError.ended }
        guard now < found.expiresAt else { throw ConsentSessionError.expired }
        return found
    }

    /// The live session whose cookie secret hashes to `secretHash`; nil when there is none,
    /// or it has expired or was ended.
    public func liveConsentSession(secretHash: [UInt8]) throws -> ConsentSession? {
        let now = self.now
        return try store.read { reader in
            guard let session = try reader.consentSession(secretHash: secretHash),
                ConstantTime.equal(session.secretHash ?? [], secretHash), session.isLive(at: now)
            else { return nil }
            return session
        }
    }

    /// The session with `id`, in whatever state; nil when none.
    public func consentSession(id: ConsentSessionID) throws -> ConsentSession? {
        try store.read { try $0.consentSession(id: id) }
    }

    /// Moves a live session's end to `configuration.consentSessionTTL` from now, at most
    /// ``ConsentSession/maxLifetimeFactor`` TTLs after its creation (the user's "Stay Signed
    /// In", WCAG 2.2.1), and audits `consent.session.extended` with the new end.
    /// - Returns: the session as it is now, and what the request did (``ConsentSession/Extension``:
    ///   moved, not yet worth moving, or at the limit; only a move is written and audited).
    /// - Throws: `PermissionError.notFound` for an unknown id; ``ConsentSessionError`` for a
    ///   session that has expired or ended, or was never opened.
    public func extendConsentSession(
        id: ConsentSessionID, actor: Actor, requestId: String?
    ) throws -> (session: ConsentSession, outcome: ConsentSession.Extension) {
        try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            guard let session = try writer.consentSession(id: id) else {
                throw PermissionError.notFound(what: "consent session \(id)")
            }
            switch session.state(at: context.now) {
            case .open: break
            case .ended: throw ConsentSessionError.ended
            case .expired: throw ConsentSessionError.expired
            case .unopened: throw ConsentSessionError.unknownToken
            }
            let outcome = session.extending(at: context.now, ttl: configuration.consentSessionTTL)
            guard case .to(let end) = outcome else { return (session, outcome) }
            let extended = session.ending(at: end)
            try writer.save(extended)
            try writer.append(
                AuditEntry(
                    at: context.now, actor: context.actor, action: .consentSessionExtended, user: session.user,
                    requestId: context.requestId,
                    detail: ["session": id.rawValue, "expiresAt": String(end.millisecondsSince1970)]))
            return (extended, outcome)
        }
    }

    /// Ends a session at once (its cookie stops working) and audits `consent.session.ended`.
    /// Ending an ended session changes nothing.
    /// - Throws: `PermissionError.notFound` for an unknown id.
    @discardableResult
    public func endConsentSession(id: ConsentSessionID, actor: Actor, requestId: String?) throws -> ConsentSession {
        try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            guard var session = try writer.consentSession(id: id) else {
                throw PermissionError.notFound(what: "consent session \(id)")
            }
            guard session.endedAt == nil else { return session }
            session.endedAt = context.now
            try writer.save(session)
            try writer.append(
                AuditEntry(
                    at: context.now, actor: context.actor, action: .consentSessionEnded, user: session.user,
                    requestId: context.requestId, detail: ["session": id.rawValue]))
            return session
        }
    }
}
