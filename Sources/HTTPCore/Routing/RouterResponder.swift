/// The frozen routing table. It splits the raw path on "/" first and then percent-decodes each
/// segment, so an encoded "/" (`%2F`) stays inside its segment (RFC 3986 §2.2, §3.3). Misses
/// throw `HTTPError`: 400 for an undecodable segment, 404 when no template matches, 405 with
/// `Allow` when the path matches but the method does not (RFC 9110 §15.5.6).
public struct RouterResponder: HTTPResponder {
    let root: RouteNode

    init(root: RouteNode) { self.root = root }

    public func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        let path = request.head.path
        guard path.hasPrefix("/") else {
            throw HTTPError(.notFound, detail: "No route matches the request target.")
        }
        var segments: [String] = []
        segments.reserveCapacity(8)
        for substring in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            if substring.utf8.contains(UInt8(ascii: "%")) {
                guard let decoded = percentDecode(substring) else {
                    throw HTTPError(.badRequest, detail: "The request path has an invalid percent-encoding.")
                }
                segments.append(decoded)
            } else {
                segments.append(String(substring))
            }
        }
        var values: [String] = []
        guard let route = root.match(segments[...], values: &values) else {
            throw HTTPError(.notFound, detail: "No route matches the request path.")
        }
        let method = request.head.method
        guard let responder = route.responders[method] ?? (method == .head ? route.responders[.get] : nil) else {
            var allowed = route.responders.keys.map(\.rawValue)
            if route.responders[.get] != nil && route.responders[.head] == nil { allowed.append("HEAD") }
            allowed.sort()
            throw HTTPError(
                .methodNotAllowed, detail: "The method \(method.rawValue) is not allowed on this resource.",
                headers: ["Allow": allowed.joined(separator: ", ")])
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
}
