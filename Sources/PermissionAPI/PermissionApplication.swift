public import HTTPCore
public import PermissionDomain

/// The permission API, ready to serve: the frozen router with its middleware, and the
/// background work (the sweeper; the event streams' broadcaster). Built by `buildApplication`.
public final class PermissionApplication: Sendable {
    /// Router and middleware, ready for `HTTPServer`.
    public let responder: any HTTPResponder
    /// The flows the controllers call (tests and `main` may use it directly).
    public let service: PermissionService
    /// The API keys of `service`, as the `/v1` routes check them. A second listener (the
    /// separate `/metrics` port) authenticates with this same one, so that a revocation through
    /// the API, which empties its cache, ends a key on every listener at once.
    public let keys: KeyAuthenticator
    /// The requests refused for a missing purpose string, by key.
    public let purposeStringRefusals: PurposeStringRefusals
    let broadcaster: ChangeBroadcaster
    let limiter: StreamLimiter
    let consentLimiter: StreamLimiter
    let sweeper: Sweeper

    init(
        responder: any HTTPResponder, service: PermissionService, keys: KeyAuthenticator,
        purposeStringRefusals: PurposeStringRefusals, broadcaster: ChangeBroadcaster, limiter: StreamLimiter,
        consentLimiter: StreamLimiter, sweeper: Sweeper
    ) {
        self.responder = responder
        self.service = service
        self.keys = keys
        self.purposeStringRefusals = purposeStringRefusals
        self.broadcaster = broadcaster
        self.limiter = limiter
        self.consentLimiter = consentLimiter
        self.sweeper = sweeper
    }

    /// Starts the sweeper: expired prompts and lapsed grants (Allow Once, expiring) are
    /// written (actor `system`) every `sweepInterval`.
    public func start() {
        sweeper.start()
    }

    /// Stops background work, and wakes and ends every event stream.
    public func stop() {
        sweeper.stop()
        broadcaster.close()
    }

    /// Runs one sweep now (what the timer does), e.g. after a test moved its clock.
    public func sweepNow() {
        sweeper.tick()
    }

    /// `GET /v1/events` streams open now.
    public var openEventStreams: Int { limiter.activeCount }

    /// `GET /consent/events` streams open now (the consent pages' live updates).
    public var openConsentEventStreams: Int { consentLimiter.activeCount }
}
