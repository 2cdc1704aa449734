public import HTTPCore
import Logging
public import PermissionDomain
import Synchronization

/// Bearer API keys (RFC 6750 §2.1, SPEC §6): finds the key by the id in the token, compares
/// the SHA-256 of the token with the stored hash in constant time, and refuses revoked keys.
/// Verified keys are cached by the token's hash for `cacheTTL`, so the hot path pays one
/// hash and one locked lookup, not a store read; `invalidate()` (called on revocation) empties
/// the cache. Failures drain a per-address `FailureLimiter` (429 with `Retry-After` instead of
/// 401 when empty; a valid key is never throttled) and are logged with the key id when the
/// token names one, never the token.
public final class KeyAuthenticator: Authenticator {
    /// `WWW-Authenticate` of a 401 (RFC 6750 §3).
    static let challenge = "Bearer realm=\"permissions\""
    static let invalidTokenChallenge = "Bearer realm=\"permissions\", error=\"invalid_token\""

    private struct Entry {
        let principal: Principal
        let expires: ContinuousClock.Instant
    }

    let service: PermissionService
    let cacheTTL: Duration
    let limiter: FailureLimiter
    private let cache = Mutex<[[UInt8]: Entry]>([:])
    private static let maximumCached = 10_000

    /// - Parameters:
    ///   - service: where keys are read from.
    ///   - cacheTTL: how long a verified key is trusted without a store read; a revocation by
    ///     another process (the `keys revoke` subcommand) takes effect within it. Default 5 s.
    ///   - failureBurst: failed authentications one address may make at once. Default 10.
    ///   - failureRefillPerSecond: how fast that allowance comes back. Default 1 per second.
    public init(
        service: PermissionService, cacheTTL: Duration = .seconds(5), failureBurst: Int = 10,
        failureRefillPerSecond: Double = 1
    ) {
        self.service = service
        self.cacheTTL = cacheTTL
        limiter = FailureLimiter(capacity: Double(failureBurst), refillPerSecond: failureRefillPerSecond)
    }

    public func authenticate(_ request: HTTPRequest, context: RequestContext) throws -> Principal {
        let address = FailureLimiter.host(of: context.remoteAddress)
        guard let header = request.headers["Authorization"] else {
            throw failure(address, context, reason: "missing", key: nil, presented: false)
        }
        guard let token = Self.bearerToken(header) else {
            throw failure(address, context, reason: "not a Bearer token", key: nil, presented: true)
        }
        let utf8 = token.utf8
        guard utf8.count <= KeySecret.maximumLength else {
            throw failure(address, context, reason: "malformed", key: nil, presented: true)
        }
        let hash = KeySecret.hash(utf8)
        let now = ContinuousClock.now
        if let entry = cache.withLock({ $0[hash] }), entry.expires > now { return entry.principal }
        guard let id = KeySecret.keyID(of: utf8, hash: hash) else {
            throw failure(address, context, reason: "malformed", key: nil, presented: true)
        }
        guard let key = try service.key(id: id), KeySecret.constantTimeEqual(key.secretHash, hash) else {
            throw failure(address, context, reason: "unknown", key: id, presented: true)
        }
        guard key.isActive else { throw failure(address, context, reason: "revoked", key: id, presented: true) }
        let principal = Principal(key: key)
        cache.withLock { cache in
            if cache.count >= Self.maximumCached { cache.removeAll(keepingCapacity: true) }
            cache[hash] = Entry(principal: principal, expires: now.advanced(by: cacheTTL))
        }
        return principal
    }

    /// Forgets every verified key, so that a revocation takes effect on the next request.
    public func invalidate() {
        cache.withLock { $0.removeAll() }
    }

    /// The token of `Bearer <token>` (the scheme is case-insensitive, RFC 9110 §11.1), or nil.
    static func bearerToken(_ header: String) -> Substring? {
        let utf8 = header.utf8
        guard utf8.count > 7, let space = header.firstIndex(of: " ") else { return nil }
        // ASCII case-insensitive "bearer", compared byte-wise (no lowercased copy on the hot path).
        let scheme = header.utf8[..<space]
        guard scheme.count == 6, zip(scheme, "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        let token = header[header.index(after: space)...].drop(while: { $0 == " " })
        return token.isEmpty ? nil : token
    }

    /// Records and logs a failed authentication; the error to throw: 401, or 429 with
    /// `Retry-After` (RFC 6585 §4) once the address has used up its failure allowance. Only
    /// failures are limited: a valid key never reaches here, so it is never throttled.
    private func failure(
        _ address: String, _ context: RequestContext, reason: String, key: KeyID?, presented: Bool
    ) -> any Error {
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
