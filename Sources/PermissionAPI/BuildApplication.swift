import HTTPCore
public import Logging
public import PermissionDomain

/// Builds the permission API over `store` (STYLE convention 9: `main` and the tests both call
/// this). Every `/v1` route needs a Bearer API key whose role holds the route's right (SPEC §6).
/// - Parameters:
///   - configuration: limits, paging, event and sweep timing, and the service TTLs.
///   - store: where the state lives (SQLite in production).
///   - clock: the time source of the domain.
///   - readiness: `/readyz`: throws unless the database is writable and migrated.
///   - logger: for the sweeper and unexpected errors; request loggers carry the request id.
///   - authenticator: resolves the principal of each request; nil for the API keys in `store`
///     (`KeyAuthenticator`).
///   - metrics: request counters and `/metrics`; nil for none.
public func buildApplication(
    configuration: APIConfiguration, store: any PermissionStore, clock: any Clock,
    readiness: @escaping @Sendable () throws -> Void, logger: Logger,
    authenticator: (any Authenticator)? = nil, metrics: APIMetrics? = nil
) -> PermissionApplication {
    let service = PermissionService(store: store, clock: clock, configuration: configuration.service)
    let broadcaster = ChangeBroadcaster()
    let limiter = StreamLimiter(
        maximum: configuration.maxEventStreams, maximumPerKey: configuration.maxEventStreamsPerKey)
    let consentLimiter = StreamLimiter(
        maximum: configuration.maxConsentEventStreams, maximumPerKey: configuration.maxEventStreamsPerKey)
    let keys = KeyAuthenticator(
        service: service, failureBurst: configuration.authFailureBurst,
        failureRefillPerSecond: configuration.authFailureRefillPerSecond)
    var routes = APIRoutes(
        authenticator: authenticator ?? keys, configuration: configuration, broadcaster: broadcaster, store: store)
    // Commits that become visible here (other replicas' included) wake the event streams, and
    // key changes made elsewhere end cached verifications at once.
    store.observeChanges { [weak broadcaster, weak keys] changes in
        if changes.logWentBack { broadcaster?.logWentBack() } else { broadcaster?.notify() }
        if changes.keysChanged { keys?.invalidate() }
    }
    HealthController(readiness: readiness).register(on: &routes)
    OpenAPIController().register(on: &routes)
    ServicesController(permissions: service).register(on: &routes)
    AppsController(permissions: service).register(on: &routes)
    AuthorizationsController(permissions: service).register(on: &routes)
    AuthZENController(permissions: service, publicURL: configuration.publicURL).register(on: &routes)
    PromptsController(permissions: service).register(on: &routes)
    SettingsController(permissions: service).register(on: &routes)
    LifecycleController(permissions: service).register(on: &routes)
    PoliciesController(permissions: service).register(on: &routes)
    ResetController(permissions: service).register(on: &routes)
    UsersController(permissions: service).register(on: &routes)
    AuditController(permissions: service).register(on: &routes)
    KeysController(permissions: service, authenticator: keys).register(on: &routes)
    ConsentSessionsController(permissions: service, publicURL: configuration.publicURL).register(on: &routes)
    ExportController(permissions: service, publicURL: configuration.publicURL, timeout: configuration.exportTimeout)
        .register(on: &routes)
    let cookie = ConsentCookie(secure: configuration.consentCookieSecure)
    ConsentController(
        permissions: service, sessions: ConsentSessionAuthenticator(permissions: service, cookie: cookie),
        cookie: cookie, broadcaster: broadcaster, limiter: consentLimiter, configuration: configuration
    ).register(on: &routes)
    if let verifier = store as? any AuditChainVerifier {
        AuditVerifyController(verifier: verifier).register(on: &routes)  // stores that keep a hash chain
    }
    EventsController(permissions: service, broadcaster: broadcaster, limiter: limiter, keys: keys).register(on: &routes)
    if let metrics, let access = metrics.route {
        MetricsController(render: metrics.render, access: access).register(on: &routes)
    }

    var router = routes.router
    router.use(RequestIdMiddleware())
    router.use(ConsentSecurityHeaders())
    router.use(AccessLogMiddleware())
    if let metrics { router.use(HTTPMetricsMiddleware(metrics: metrics.http)) }
    let purposeStringRefusals = PurposeStringRefusals()
    router.use(
        ErrorMiddleware(mapper: { error, context in
            if case PermissionError.missingPurposeString(let key) = error { purposeStringRefusals.record(key) }
            return ErrorMapping.httpError(for: error, context: context)
        }))
    router.use(ConsentRouteMisses())  // inside ErrorMiddleware: the router's misses under /consent become pages
    let sweeper = Sweeper(
        permissions: service, broadcaster: broadcaster, interval: configuration.sweepInterval, logger: logger)
    return PermissionApplication(
        responder: router.buildResponder(), service: service, keys: keys, purposeStringRefusals: purposeStringRefusals,
        broadcaster: broadcaster, limiter: limiter, consentLimiter: consentLimiter, sweeper: sweeper)
}
