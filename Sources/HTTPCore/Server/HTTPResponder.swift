public import Logging

/// Per-request context handed down the middleware chain to the handler.
///
/// Every middleware passes it on by value, so it is kept small: what rarely changes (the peer
/// address and the logger) sits in one shared object that a copy retains once, and is replaced,
/// not changed, when a setter runs.
public struct RequestContext: Sendable {
    /// The peer address and the logger as given, shared by the copies of one context (and by
    /// the contexts of one connection, which makes it once).
    final class Origin: Sendable {
        let remoteAddress: String
        let logger: Logger
        /// Whether `logger` already carries `request-id` (a logger set by a handler).
        let loggerCarriesId: Bool

        init(remoteAddress: String, logger: Logger, loggerCarriesId: Bool) {
            self.remoteAddress = remoteAddress
            self.logger = logger
            self.loggerCarriesId = loggerCarriesId
        }
    }

    private var origin: Origin

    /// The request id: a sane incoming `X-Request-Id`, else one the server generated.
    public var requestId: String {
        didSet {
            if origin.loggerCarriesId {
                var logger = origin.logger
                logger[metadataKey: "request-id"] = .string(requestId)
                origin = Origin(remoteAddress: origin.remoteAddress, logger: logger, loggerCarriesId: true)
            }
        }
    }
    /// The peer address, as "ip:port".
    public var remoteAddress: String {
        get { origin.remoteAddress }
        set { origin = Origin(remoteAddress: newValue, logger: origin.logger, loggerCarriesId: origin.loggerCarriesId) }
    }
    /// Path parameters captured by the router, percent-decoded (`{user}` → value).
    public var parameters: PathParameters
    /// The route template that matched, e.g. "/v1/users/{user}", for logs and metrics; nil
    /// before routing and when no route answers the method (404, 405, 400).
    public var route: String? { routeMatch?.template }
    /// What `RouterResponder.prepare` matched (a miss included), set before the middleware
    /// chain runs: for the middleware (`route`) and for the router's `respond`.
    var routeMatch: RouteMatch?
    /// Storage that lives as long as the connection the request came on (nil outside a server).
    public var connection: ConnectionStorage?
    /// Set by the engine for a request it runs on an event loop: runs a job on its worker
    /// threads (``offload(_:)``). nil elsewhere; a test that plays the engine's loop sets its own.
    public var worker: (@Sendable (@escaping @Sendable () -> Void) -> Void)?

    /// A logger whose metadata carries `request-id`. The id is added on read (setting logger
    /// metadata costs a dictionary copy, and some handlers format all metadata on every
    /// change), so a request that never logs never pays for it.
    public var logger: Logger {
        get {
            if origin.loggerCarriesId { return origin.logger }
            var logger = origin.logger
            logger[metadataKey: "request-id"] = .string(requestId)
            return logger
        }
        set {
            origin = Origin(remoteAddress: origin.remoteAddress, logger: newValue, loggerCarriesId: true)
        }
    }

    /// The logger's level, read without building the per-request logger.
    public var logLevel: Logger.Level { origin.logger.logLevel }

    /// A context for a request on a connection whose `origin` is already made.
    init(requestId: String, origin: Origin) {
        self.requestId = requestId
        self.origin = origin
        self.parameters = [:]
    }

    public init(requestId: String, logger: Logger, remoteAddress: String, parameters: PathParameters = [:]) {
        self.requestId = requestId
        self.origin = Origin(remoteAddress: remoteAddress, logger: logger, loggerCarriesId: false)
        self.parameters = parameters
    }
}

extension RequestContext {
    /// `body`'s response, made where waiting is allowed: for a request the engine runs on an
    /// event loop (``worker`` set), a deferred response that a worker thread completes with
    /// `body`'s outcome, once the engine has handed the connection over (``HTTPDeferredResponse``);
    /// elsewhere `body` runs here. For a handler sent to the loop that finds it must wait after
    /// all (a read whose answer left memory meanwhile).
    public func offload(_ body: @escaping @Sendable () throws -> HTTPResponse) rethrows -> HTTPResponse {
        guard let worker else { return try body() }
        let deferred = HTTPDeferredResponse()
        deferred.whenAwaited {
            worker {
                let outcome = Result { try body() }
                // A body that answers later itself: its outcome is this one's.
                if case .success(let response) = outcome, let inner = response.deferred {
                    inner.whenComplete { deferred.complete($0) }
                } else {
                    deferred.complete(outcome)
                }
            }
        }
        return .deferred(deferred)
    }
}

/// A value a responder keeps for the life of one connection, such as a credential it already
/// verified on it. The engine serves a connection's requests one at a time, also when one runs
/// on a worker thread, so the request being served is the only one that touches it.
///
/// `@unchecked Sendable`: it travels with the request to a worker thread; whoever serves the
/// connection's current request owns it, which debug builds check on every access (the
/// connection's event loop, or the worker while the request runs there).
public final class ConnectionStorage: @unchecked Sendable {
    // Unchecked exclusivity: one request at a time reads or replaces it, never while borrowed.
    @exclusivity(unchecked) private var stored: (any AnyObject & Sendable)?

    /// Whatever the responder left here (an object: reading it back is a cheap class cast);
    /// nil on a new connection.
    public var value: (any AnyObject & Sendable)? {
        get {
            assertOwner()
            return stored
        }
        set {
            assertOwner()
            stored = newValue
        }
    }

    #if DEBUG
    /// Stops a debug build when the caller does not serve the connection's current request;
    /// set by the engine (a storage made elsewhere has no owner to check).
    var ownerCheck: (@Sendable () -> Void)?
    #endif

    @inline(__always) private func assertOwner() {
        #if DEBUG
        ownerCheck?()
        #endif
    }

    public init() {}
}

/// Where the engine runs a responder for one request.
public enum HTTPExecution: Sendable, Equatable {
    /// Inline on the connection's event loop: for quick work that never blocks (a cached or
    /// indexed read). Every other connection of that loop waits meanwhile; no thread hand-off.
    case eventLoop
    /// On a worker thread (`WorkerPool`): for work that may block (a durable write waiting for its
    /// commit, a long scan, a streamed body). The connection pauses until the response is back.
    case worker
}

/// Anything that turns a request into a response. The engine calls ``prepare(_:context:)``
/// once, then `respond` with the context it prepared, inline or on a worker thread as
/// `prepare` said; `respond` may block briefly (a durable write) only on a worker thread, and
/// must not wait forever.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse

    /// Where `respond` runs for a request with this head, decided before the body is handed
    /// over and before any middleware runs. A responder that has to look the request up to
    /// answer it (a router) leaves what it found in `context`, for the middleware and for
    /// `respond`, so that nothing looks again. Default `.worker`, which is always safe; a
    /// `Router` answers per route.
    func prepare(_ head: HTTPRequestHead, context: inout RequestContext) -> HTTPExecution
}

extension HTTPResponder {
    public func prepare(_ head: HTTPRequestHead, context: inout RequestContext) -> HTTPExecution { .worker }
}

/// Path parameters by name: a route has a few, so the names (shared by every match of the
/// route) are scanned rather than hashed, and a match allocates only its values.
public struct PathParameters: Sendable, ExpressibleByDictionaryLiteral {
    private let names: [String]
    private let values: [String]

    init(names: [String], values: [String]) {
        self.names = names
        self.values = values
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        names = elements.map(\.0)
        values = elements.map(\.1)
    }

    /// The value of the parameter `name`, or nil when the route has none of that name.
    public subscript(name: String) -> String? {
        for index in names.indices where names[index] == name { return values[index] }
        return nil
    }

    public var isEmpty: Bool { names.isEmpty }
}

/// A step in the chain that may act before and after `next`.
public protocol HTTPMiddleware: Sendable {
    func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) throws -> HTTPResponse
}

/// A responder made of a closure.
public struct ClosureResponder: HTTPResponder {
    let body: @Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse
    public init(_ body: @escaping @Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse) { self.body = body }
    public func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        try body(request, context)
    }
}

/// An error a handler throws to answer with a specific status and problem+json body (RFC 9457).
public struct HTTPError: Error, Sendable {
    public var status: HTTPStatus
    /// Problem type URI; "about:blank" when the status says it all.
    public var type: String
    public var title: String
    public var detail: String?
    /// Extra headers for the error response (e.g. `Allow` on 405, `WWW-Authenticate` on 401).
    public var headers: HTTPHeaders
    /// Extra members of the problem object, as already-encoded JSON values keyed by member name.
    public var extensions: [(String, String)]

    public init(
        _ status: HTTPStatus, type: String = "about:blank", title: String? = nil, detail: String? = nil,
        headers: HTTPHeaders = HTTPHeaders(), extensions: [(String, String)] = []
    ) {
        self.status = status
        self.type = type
        self.title = title ?? status.reason
        self.detail = detail
        self.headers = headers
        self.extensions = extensions
    }
}
