import Foundation
public import HTTPCore
import Logging
public import PermissionDomain
import Synchronization

/// Bearer API keys (RFC 6750 §2.1, SPEC §6): finds the key by the id in the token, compares
/// the SHA-256 of the token with the stored hash in constant time, and refuses revoked keys.
/// Verified keys are cached by the token's hash for `cacheTTL`, so a request pays one hash and
/// one locked lookup, not a store read; a keep-alive connection also remembers the header it
/// last authenticated with, so its next requests pay one comparison. `invalidate()` (called on
/// revocation) empties the cache and makes every connection verify again. Failures drain a
/// per-address `FailureLimiter` (429 with `Retry-After` instead of 401 when empty; a valid key
/// is never throttled) and are logged with the key id when the token names one, never the token.
public final class KeyAuthenticator: Authenticator {
    /// `WWW-Authenticate` of a 401 (RFC 6750 §3).
    static let challenge = "Bearer realm=\"permissions\""
    static let invalidTokenChallenge = "Bearer realm=\"permissions\", error=\"invalid_token\""

    private struct Entry {
        let principal: Principal
        let expires: ContinuousClock.Instant
    }

    /// A token's SHA-256 as a cache key: the dictionary compares keys with `==`, here in
    /// constant time like every other comparison of something derived from a secret.
    private struct TokenHash: Hashable {
        let bytes: [UInt8]

        static func == (lhs: TokenHash, rhs: TokenHash) -> Bool { ConstantTime.equal(lhs.bytes, rhs.bytes) }
        func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
    }

    /// The header a connection last authenticated with, kept in `RequestContext.connection`:
    /// a keep-alive client sends the same one every time, so the next request on the
    /// connection compares it instead of hashing the token.
    private final class Remembered: Sendable {
        let header: String
        let principal: Principal
        let expires: ContinuousClock.Instant
        let generation: Int

        init(header: String, principal: Principal, expires: ContinuousClock.Instant, generation: Int) {
            self.header = header
            self.principal = principal
            self.expires = expires
            self.generation = generation
        }
    }

    let service: PermissionService
    let cacheTTL: Duration
    /// Whether verified keys kept in memory may be trusted now (``PermissionStore/memoryIsFresh``):
    /// when not, every request reads its key from the store, so a key another replica revoked
    /// stops working at once there too.
    let memoryIsFresh: @Sendable () -> Bool
    let limiter: FailureLimiter
    private let cache = Mutex<[TokenHash: Entry]>([:])
    /// Bumped by `invalidate()`: what connections remember from before no longer counts.
    private let generation = Atomic<Int>(0)
    private static let maximumCached = 10_000

    /// - Parameters:
    ///   - service: where keys are read from.
    ///   - cacheTTL: how long a verified key is trusted without a store read; a revocation by
    ///     another process (the `keys revoke` subcommand) takes effect within it, or sooner when
    ///     the store reports that process's commit (`invalidate()`). Default 5 s.
    ///   - failureBurst: failed authentications one address may make at once. Default 10.
    ///   - failureRefillPerSecond: how fast that allowance comes back. Default 1 per second.
    public init(
        service: PermissionService, cacheTTL: Duration = .seconds(5), failureBurst: Int = 10,
        failureRefillPerSecond: Double = 1
    ) {
        self.service = service
        self.cacheTTL = cacheTTL
        let store = service.store
        memoryIsFresh = { store.memoryIsFresh }
        limiter = FailureLimiter(capacity: Double(failureBurst), refillPerSecond: failureRefillPerSecond)
    }

    public func authenticate(_ request: HTTPRequest, context: RequestContext) throws -> Principal {
        guard let header = request.headers["Authorization"] else {
            throw failure(context, reason: "missing", key: nil, presented: false)
        }
        let now = ContinuousClock.now
        let current = generation.load(ordering: .acquiring)
        if let principal = remembered(header, context: context, now: now, generation: current) { return principal }
        let (principal, expires) = try verify(header, context: context, now: now, generation: current)
        context.connection?.value = Remembered(
            header: header, principal: principal, expires: expires, generation: current)
        return principal
    }

    public func authenticateFromStore(_ request: HTTPRequest, context: RequestContext) throws -> Principal {
        guard let header = request.headers["Authorization"] else {
            throw failure(context, reason: "missing", key: nil, presented: false)
        }
        let current = generation.load(ordering: .acquiring)
        return try verify(header, context: context, now: .now, generation: current, fromStore: true).0
    }

    /// Whether the key `head` presents would be verified without reading the store: the
    /// connection remembers it, or the cache of verified keys holds it. A request without a
    /// key, or with a malformed one, is refused without a read too.
    func verifiesFromMemory(_ head: HTTPRequestHead, context: RequestContext) -> Bool {
        guard let header = head.headers["Authorization"] else { return true }
        let now = ContinuousClock.now
        if remembered(header, context: context, now: now, generation: generation.load(ordering: .acquiring)) != nil {
            return true
        }
        guard let token = Self.bearerToken(header), token.utf8.count <= KeySecret.maximumLength else { return true }
        let hash = KeySecret.hash(token.utf8)
        guard let entry = cache.withLock({ $0[TokenHash(bytes: hash)] }) else { return false }
        return entry.expires > now && memoryIsFresh()
    }

    /// The principal the connection remembers for `header`, when it is still trusted: verified
    /// since the last ``invalidate()`` (`generation`) and not expired.
    private func remembered(
        _ header: String, context: RequestContext, now: ContinuousClock.Instant, generation: Int
    )
        -> Principal?
    {
        guard let remembered = context.connection?.value as? Remembered, remembered.generation == generation,
            remembered.expires > now, Self.sameBytes(remembered.header, header), memoryIsFresh()
        else { return nil }
        return remembered.principal
    }

    /// Byte equality in constant time (`==` on `String` is canonical equivalence, under which
    /// a KELVIN SIGN equals "K", and may stop at the first difference).
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        ConstantTime.equal(lhs.utf8, rhs.utf8)
    }

    /// The principal of an `Authorization` field and until when it may be trusted without
    /// looking again: from the cache of verified keys, else the store.
    /// - Parameter generation: `generation` when the request started; a key read before an
    ///   `invalidate()` is not cached after it.
    /// - Parameter fromStore: skip the cache of verified keys.
    private func verify(
        _ header: String, context: RequestContext, now: ContinuousClock.Instant, generation started: Int,
        fromStore: Bool = false
    ) throws -> (Principal, ContinuousClock.Instant) {
        guard let token = Self.bearerToken(header) else {
            throw failure(context, reason: "not a Bearer token", key: nil, presented: true)
        }
        let utf8 = token.utf8
        guard utf8.count <= KeySecret.maximumLength else {
            throw failure(context, reason: "malformed", key: nil, presented: true)
        }
        let hash = KeySecret.hash(utf8)
        if !fromStore, let entry = cache.withLock({ $0[TokenHash(bytes: hash)] }), entry.expires > now, memoryIsFresh() {
            return (entry.principal, entry.expires)
        }
        guard let id = KeySecret.keyID(of: utf8, hash: hash) else {
            throw failure(context, reason: "malformed", key: nil, presented: true)
        }
        guard let key = try service.key(id: id), ConstantTime.equal(key.secretHash, hash) else {
            throw failure(context, reason: "unknown", key: id, presented: true)
        }
        guard key.isActive else { throw failure(context, reason: "revoked", key: id, presented: true) }
        let principal = Principal(key: key)
        let expires = now.advanced(by: cacheTTL)
        cache.withLock { cache in
            guard generation.load(ordering: .acquiring) == started else { return }
            if cache.count >= Self.maximumCached { cache.removeAll(keepingCapacity: true) }
            cache[TokenHash(bytes: hash)] = Entry(principal: principal, expires: expires)
        }
        return (principal, expires)
    }

    /// Forgets every verified key, so that a revocation takes effect on the next request.
    public func invalidate() {
        cache.withLock { cache in
            generation.add(1, ordering: .releasing)
            cache.removeAll()
        }
    }

    /// Revocations through this process so far (`invalidate()` calls): an open event stream
    /// reads its key again when the count moved (`StreamKeyCheck`).
    var revocations: Int { generation.load(ordering: .acquiring) }

    /// The token of `Bearer <token>` (the scheme is case-insensitive, RFC 9110 §11.1), or nil.
    static func bearerToken(_ header: String) -> Substring? {
        // Byte-wise: ASCII case-insensitive "bearer", one or more spaces, the token.
        let utf8 = header.utf8
        guard utf8.count > 7, let space = utf8.firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let scheme = utf8[..<space]
        guard scheme.count == 6, zip(scheme, "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        guard let start = utf8[space...].firstIndex(where: { $0 != UInt8(ascii: " ") }) else { return nil }
        return header[start...]
    }

    /// Records and logs a failed authentication; the error to throw: 401, or 429 with
    /// `Retry-After` (RFC 6585 §4) once the address has used up its failure allowance. Only
    /// failures are limited: a valid key never reaches here, so it is never throttled.
    private func failure(_ context: RequestContext, reason: String, key: KeyID?, presented: Bool) -> any Error {
        let address = FailureLimiter.host(of: context.remoteAddress)
        var metadata: Logger.Metadata = ["reason": .string(reason), "remote": .string(address)]
        if let key { metadata["key"] = .string(key.rawValue) }
        context.logger.notice("authentication failed", metadata: metadata)
        // No key at all is not a guess: always 401. Only presented keys that fail are limited.
        if presented, let wait = limiter.retryAfter(address) {
            return HTTPError(
                HTTPStatus(code: 429), type: Wire.ProblemType.tooManyRequests.uri,
                title: Wire.ProblemType.tooManyRequests.title,
                detail: "Too many requests with a missing or invalid API key from this address; retry later.",
                headers: ["Retry-After": String(wait)])
        }
        if presented { limiter.recordFailure(address) }
        return APIProblem(
            .unauthorized,
            presented
                ? "The API key is unknown, revoked or malformed."
                : "This endpoint needs an API key: Authorization: Bearer <key>.",
            headers: ["WWW-Authenticate": presented ? Self.invalidTokenChallenge : Self.challenge])
    }
}
