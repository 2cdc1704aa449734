/// The frozen routing table. It splits the raw path on "/" bytes first and then percent-decodes
/// only the segments holding a "%", so an encoded "/" (`%2F`) stays inside its segment
/// (RFC 3986 §2.2, §3.3). Literal segments compare byte-wise with the decoded segment. Misses
/// throw `HTTPError`: 400 for an undecodable segment, 404 when no template matches, 405 with
/// `Allow` when the path matches but the method does not (RFC 9110 §15.5.6).
public struct RouterResponder: HTTPResponder {
    let root: RouteNode

    init(root: RouteNode) { self.root = root }

    public func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        var path = request.head.path
        // Byte offsets into the path, walked in place: no segment array, no String per segment.
        let found: (route: Route, values: [String])? = try path.withUTF8 { bytes in
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
        guard let (route, values) = found else {
            throw HTTPError(.notFound, detail: "No route matches the request path.")
        }
        let method = request.head.method
        guard let responder = route.handler(for: method)?.responder else {
            throw HTTPError(
                .methodNotAllowed, detail: "The method \(method.rawValue) is not allowed on this resource.",
                headers: ["Allow": route.allowedMethods.joined(separator: ", ")])
        }
        var context = context
        context.route = route.template
        RouteMarker.set(route.template)  // for HTTPMetricsMiddleware, which runs outside the router
        if !values.isEmpty {
            var parameters: [String: String] = [:]
            parameters.reserveCapacity(values.count)
            for (name, value) in zip(route.parameterNames, values) { parameters[name] = value }
            context.parameters = parameters
        }
        return try responder.respond(to: request, context: context)
    }

    /// The matched route's choice; misses (400, 404, 405) are answered inline.
    public func execution(for head: HTTPRequestHead) -> HTTPExecution {
        var path = head.path
        let method = head.method
        return path.withUTF8 { bytes in
            guard bytes.first == ASCII.slash else { return .eventLoop }
            let decode = bytes.contains(ASCII.percent)
            if decode && !PathSegments.allDecode(bytes) { return .eventLoop }
            guard let route = root.match(bytes, from: 1, decode: decode) else { return .eventLoop }
            return route.handler(for: method)?.execution ?? .eventLoop
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
