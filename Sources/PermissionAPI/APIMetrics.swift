public import HTTPCore

/// What the API needs for `/metrics`: the request counters its middleware feeds, where the
/// route is served, and the closure that renders the whole exposition at scrape time (HTTP
/// series plus whatever `main` adds: connections, database, audit).
public struct APIMetrics: Sendable {
    /// Request counts and latencies, fed by `HTTPMetricsMiddleware` on the API router.
    public var http: HTTPMetrics
    /// The access of `GET /metrics` on the API router; nil when it is served elsewhere (a
    /// separate listener, see `buildMetricsResponder`) or not at all.
    public var route: RouteAccess?
    /// Renders the exposition; its error becomes a 500 problem.
    public var render: @Sendable () throws -> String

    public init(http: HTTPMetrics, route: RouteAccess?, render: @escaping @Sendable () throws -> String) {
        self.http = http
        self.route = route
        self.render = render
    }
}

/// The responder of a separate metrics listener: `GET /metrics` only (with `access`, decided
/// by `authenticator`), request ids and problem+json errors like the API's.
/// - Parameters:
///   - metrics: its `render` answers the scrape.
///   - access: `.open`, or `.admin` to demand an admin key.
///   - authenticator: resolves the caller when `access` is not `.open` (e.g. a
///     `KeyAuthenticator` over the application's service).
public func buildMetricsResponder(
    metrics: APIMetrics, access: RouteAccess, authenticator: any Authenticator
) -> any HTTPResponder {
    var routes = APIRoutes(
        authenticator: authenticator, configuration: APIConfiguration(), broadcaster: ChangeBroadcaster(), store: nil)
    MetricsController(render: metrics.render, access: access).register(on: &routes)
    var router = routes.router
    router.use(RequestIdMiddleware())
    router.use(ErrorMiddleware(mapper: { error, context in ErrorMapping.httpError(for: error, context: context) }))
    return router.buildResponder()
}
