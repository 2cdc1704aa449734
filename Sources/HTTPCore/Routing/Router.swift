/// Routes built mutably, then frozen into an immutable `RouterResponder` (see Hummingbird's
/// `Router.buildResponder`). Templates are "/"-separated with `{name}` parameters:
///
/// ```swift
/// var router = Router()
/// router.get("/v1/users/{user}/apps/{app}") { request, context in ... }
/// router.use(RequestIdMiddleware())
/// let responder = router.buildResponder()
/// ```
public struct Router: Sendable {
    public typealias Handler = @Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse

    private var root = RouteNode()
    private var middleware: [any HTTPMiddleware] = []

    public init() {}

    /// Registers `responder` for `method` requests matching `template`.
    /// - Parameters:
    ///   - method: the request method; GET routes also answer HEAD (RFC 9110 §9.3.2).
    ///   - template: e.g. "/v1/users/{user}"; literal segments compare with decoded path segments.
    ///   - execution: where it runs; default inline on the event loop for GET, HEAD and
    ///     OPTIONS (reads), on a worker thread for the rest. Pass `.worker` for a read that
    ///     may take long (a full scan), `.eventLoop` only for work that never blocks.
    ///   - decide: when given, asked for each request instead (with the route's parameters in
    ///     the context): for a route that is quick only when its answer is at hand, such as a
    ///     read served from memory when cached and from a remote database otherwise. It runs on
    ///     the event loop, so it must be cheap and never block.
    ///   - responder: what answers; it finds parameters in `context.parameters`.
    public mutating func on(
        _ method: HTTPMethod, _ template: String, execution: HTTPExecution? = nil,
        decide: (@Sendable (HTTPRequestHead, RequestContext) -> HTTPExecution)? = nil, responder: any HTTPResponder
    ) {
        let segments = RouteTemplateSegment.parse(template)
        var names: [String] = []
        var ordinals: [Int] = []
        for (ordinal, segment) in segments.enumerated() {
            if case .parameter(let name) = segment {
                names.append(name)
                ordinals.append(ordinal)
            }
        }
        precondition(Set(names).count == names.count, "route \(template) repeats a parameter name")
        root.insert(
            segments: segments[...], template: template, names: names, ordinals: ordinals, method: method,
            responder: responder,
            execution: RouteExecution(fixed: execution ?? Self.defaultExecution(for: method), decide: decide))
    }

    /// Reads run inline, everything else on a worker thread.
    static func defaultExecution(for method: HTTPMethod) -> HTTPExecution {
        switch method {
        case .get, .head, .options: return .eventLoop
        default: return .worker
        }
    }

    /// Registers a closure for `method` requests matching `template`.
    public mutating func on(
        _ method: HTTPMethod, _ template: String, execution: HTTPExecution? = nil,
        decide: (@Sendable (HTTPRequestHead, RequestContext) -> HTTPExecution)? = nil, _ handler: @escaping Handler
    ) {
        on(method, template, execution: execution, decide: decide, responder: ClosureResponder(handler))
    }

    public mutating func get(_ template: String, execution: HTTPExecution? = nil, _ handler: @escaping Handler) {
        on(.get, template, execution: execution, handler)
    }
    public mutating func put(_ template: String, _ handler: @escaping Handler) { on(.put, template, handler) }
    public mutating func post(_ template: String, _ handler: @escaping Handler) { on(.post, template, handler) }
    public mutating func delete(_ template: String, _ handler: @escaping Handler) { on(.delete, template, handler) }
    public mutating func patch(_ template: String, _ handler: @escaping Handler) { on(.patch, template, handler) }

    /// Adds a middleware around every route; the first added runs outermost.
    public mutating func use(_ middleware: any HTTPMiddleware) {
        self.middleware.append(middleware)
    }

    /// Freezes the routes and middleware into one immutable responder.
    public func buildResponder() -> any HTTPResponder {
        let routes = RouterResponder(root: root)
        if middleware.isEmpty { return routes }
        return MiddlewareChain(middleware, responder: routes)
    }
}
