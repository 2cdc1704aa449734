/// The frozen routing table. It splits the raw path on "/" bytes first and then percent-decodes
/// only the segments holding a "%", so an encoded "/" (`%2F`) stays inside its segment
/// (RFC 3986 §2.2, §3.3). Literal segments compare byte-wise with the decoded segment. Misses
/// are answered with `HTTPError`: 400 for an undecodable segment, 404 when no template matches,
/// 405 with `Allow` when the path matches but the method does not (RFC 9110 §15.5.6). OPTIONS
/// on a route without a handler of its own, and `OPTIONS *`, is `204` with `Allow` (§9.3.7).
///
/// A request is matched once, in ``prepare(_:context:)``, which the engine calls before the
/// middleware chain runs: the match (a miss included) stays in the context, where the
/// middleware reads its template (`RequestContext.route`) and ``respond(to:context:)`` answers
/// from it without looking again.
public struct RouterResponder: HTTPResponder {
    let root: FrozenRouteNode
    /// Tells this router's matches from another's (a router mounted inside a route).
    private let identity = RouterIdentity()
    /// `OPTIONS *`, the server in general (RFC 9110 §9.3.7): `204` allowing every method some
    /// route answers.
    private let serverOptions: Route

    init(root: RouteNode) {
        self.root = FrozenRouteNode(root)
        serverOptions = Route(
            template: "*", parameterNames: [], parameterOrdinals: [],
            handlers: [Route.options(allowing: self.root.allMethods.isEmpty ? ["OPTIONS"] : self.root.allMethods)])
    }

    /// Matches the request, leaves the match and its parameters in `context`, and says where
    /// the route runs; misses (400, 404, 405) are answered inline.
    public func prepare(_ head: HTTPRequestHead, context: inout RequestContext) -> HTTPExecution {
        guard case .found(_, let handler) = match(head, into: &context).outcome else { return .eventLoop }
        guard let decide = handler.execution.decide else { return handler.execution.fixed }
        return decide(head, context)
    }

    public func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        var context = context
        let match: RouteMatch
        if let prepared = context.routeMatch, prepared.router === identity {
            match = prepared
        } else {
            // Not prepared by this router: mounted inside a route, or called without `prepare`.
            match = self.match(request.head, into: &context)
        }
        switch match.outcome {
        case .found(_, let handler): return try handler.responder.respond(to: request, context: context)
        case .missed(let error): throw error
        }
    }

    /// Matches `head` and records the match, and the route's parameters, in `context`.
    private func match(_ head: HTTPRequestHead, into context: inout RequestContext) -> RouteMatch {
        let match: RouteMatch
        do {
            if head.method == .options, head.path == "*", let options = serverOptions.handler(for: .options) {
                // Only OPTIONS has the asterisk-form target (the parser refuses it with others).
                match = RouteMatch(router: identity, outcome: .found(serverOptions, options))
            } else if let (route, values) = try lookup(head.path) {
                if let handler = route.handler(for: head.method) {
                    match = RouteMatch(router: identity, outcome: .found(route, handler))
                    if !values.isEmpty { context.parameters = PathParameters(names: route.parameterNames, values: values) }
                } else if !head.method.isRegistered {
                    match = RouteMatch(router: identity, outcome: .missed(Self.notImplemented(head.method)))
                } else {
                    let method = head.method
                    match = RouteMatch(
                        router: identity,
                        outcome: .missed(
                            HTTPError(
                                .methodNotAllowed, detail: "The method \(method.rawValue) is not allowed on this resource.",
                                headers: ["Allow": route.allowedMethods.joined(separator: ", ")])))
                }
            } else if !head.method.isRegistered {
                match = RouteMatch(router: identity, outcome: .missed(Self.notImplemented(head.method)))
            } else {
                match = RouteMatch(
                    router: identity, outcome: .missed(HTTPError(.notFound, detail: "No route matches the request path.")))
            }
        } catch {
            // `lookup` throws only the `HTTPError`s it documents.
            match = RouteMatch(router: identity, outcome: .missed(error as? HTTPError ?? HTTPError(.badRequest)))
        }
        context.routeMatch = match
        return match
    }

    /// A method the server does not recognize, on any resource: 501 (RFC 9110 §9.1), where a
    /// method it knows but the resource does not take is 405.
    private static func notImplemented(_ method: HTTPMethod) -> HTTPError {
        HTTPError(.notImplemented, detail: "The method \(method.rawValue) is not implemented by this server.")
    }

    /// The route matching `path` and its parameter values; nil when none matches.
    /// - Throws: `HTTPError` 404 for a path not starting with "/", 400 for a bad percent-encoding.
    private func lookup(_ path: String) throws -> (route: Route, values: [String])? {
        var path = path
        // Byte offsets into the path, walked in place: no segment array, no String per segment.
        return try path.withUTF8 { bytes in
            guard bytes.first == ASCII.slash else {
                throw HTTPError(.notFound, detail: "No route matches the request target.")
            }
            let decode = bytes.contains(ASCII.percent)
            if decode && !PathSegments.allDecode(bytes) {
                throw HTTPError(.badRequest, detail: "The request path has an invalid percent-encoding.")
            }
            guard let route = root.match(bytes, from: 1, decode: decode) else { return nil }
            return (route, Self.values(of: route, in: bytes))
        }
    }
    /// The (decoded) values of the route's parameters, taken from their segment ordinals.
    private static func values(of route: Route, in path: UnsafeBufferPointer<UInt8>) -> [String] {
        let ordinals = route.parameterOrdinals
        guard !ordinals.isEmpty else { return [] }
        var values: [String] = []
        values.reserveCapacity(ordinals.count)
        var ordinal = 0
        var start = 1
        var wanted = 0
        while start <= path.count && wanted < ordinals.count {
            let end = PathSegments.end(of: path, from: start)
            if ordinal == ordinals[wanted] {
                // Every segment was checked to decode before matching.
                values.append(PathSegments.value(UnsafeBufferPointer(rebasing: path[start..<end])) ?? "")
                wanted += 1
            }
            ordinal += 1
            start = end + 1
        }
        return values
    }
}

/// An identity token for one `RouterResponder`.
final class RouterIdentity: Sendable {}

/// What `RouterResponder.prepare` matched for one request, carried in its context to the
/// middleware and to `respond` (an object, so that the context's copies on the way retain it
/// once).
final class RouteMatch: Sendable {
    enum Outcome: Sendable {
        /// The route and the handler of the request's method.
        case found(Route, Route.Handler)
        /// The error that answers the request: 400, 404, or 405 with `Allow`.
        case missed(HTTPError)
    }

    let router: RouterIdentity
    let outcome: Outcome

    init(router: RouterIdentity, outcome: Outcome) {
        self.router = router
        self.outcome = outcome
    }

    /// The matched route's template; nil for a miss.
    var template: String? {
        if case .found(let route, _) = outcome { route.template } else { nil }
    }
}
