import Logging

/// The frozen routing table. It splits the raw path on "/" bytes first and then percent-decodes
/// only the segments holding a "%", so an encoded "/" (`%2F`) stays inside its segment
/// (RFC 3986 §2.2, §3.3). Literal segments compare byte-wise with the decoded segment. Misses
/// throw `HTTPError`: 400 for an undecodable segment, 404 when no template matches, 405 with
/// `Allow` when the path matches but the method does not (RFC 9110 §15.5.6).
///
/// The engine asks ``prepare(_:context:)`` where to run a request before it runs it; the match
/// made there travels in the context to ``respond(to:context:)``, so a request is routed once.
public struct RouterResponder: HTTPResponder {
    let root: FrozenRouteNode
    /// Tells this router's matches from another's (a router mounted inside a route).
    private let identity = RouterIdentity()

    init(root: RouteNode) { self.root = FrozenRouteNode(root) }

    public func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        var context = context
        let route: Route
        let values: [String]
        if let resolved = context.resolvedRoute, resolved.router === identity {
            (route, values) = (resolved.route, resolved.values)
            context.resolvedRoute = nil
        } else {
            guard let found = try lookup(request.head.path) else {
                throw HTTPError(.notFound, detail: "No route matches the request path.")
            }
            (route, values) = found
        }
        let method = request.head.method
        guard let responder = route.handler(for: method)?.responder else {
            throw HTTPError(
                .methodNotAllowed, detail: "The method \(method.rawValue) is not allowed on this resource.",
                headers: ["Allow": route.allowedMethods.joined(separator: ", ")])
        }
        context.route = route.template
        RouteMarker.set(route.template)  // for HTTPMetricsMiddleware, which runs outside the router
        if !values.isEmpty { context.parameters = PathParameters(names: route.parameterNames, values: values) }
        return try responder.respond(to: request, context: context)
    }

    /// The matched route's choice, with the match left in `context` for ``respond(to:context:)``;
    /// misses (400, 404, 405) are answered inline.
    public func prepare(_ head: HTTPRequestHead, context: inout RequestContext) -> HTTPExecution {
        guard let (route, values) = try? lookup(head.path), let handler = route.handler(for: head.method) else {
            return .eventLoop
        }
        context.resolvedRoute = ResolvedRoute(router: identity, route: route, values: values)
        guard let decide = handler.execution.decide else { return handler.execution.fixed }
        var asked = context
        if !values.isEmpty { asked.parameters = PathParameters(names: route.parameterNames, values: values) }
        return decide(head, asked)
    }

    public func execution(for head: HTTPRequestHead) -> HTTPExecution {
        var context = RequestContext(requestId: "", logger: Self.quiet, remoteAddress: "")
        return prepare(head, context: &context)
    }

    private static let quiet = Logger(label: "router", factory: { _ in SwiftLogNoOpLogHandler() })

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

/// A route matched by `RouterResponder.prepare`, carried to its `respond` in the context (an
/// object, so that the context's copies on the way retain it once).
final class ResolvedRoute: Sendable {
    let router: RouterIdentity
    let route: Route
    let values: [String]

    init(router: RouterIdentity, route: Route, values: [String]) {
        self.router = router
        self.route = route
        self.values = values
    }
}
