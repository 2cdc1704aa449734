/// One route: the responder per method for a template, and the names of its parameters in
/// path order.
struct Route: Sendable {
    var template: String
    var parameterNames: [String]
    var responders: [HTTPMethod: any HTTPResponder] = [:]
}

/// A node of the segment trie: literal children by exact (decoded) segment, at most one
/// parameter child, and the route that ends here.
struct RouteNode: Sendable {
    var literals: [String: RouteNode] = [:]
    /// Zero or one element: the child matching any single segment.
    var parameter: [RouteNode] = []
    var route: Route?

    /// Inserts `responder` for `method` at the template's segments.
    mutating func insert(
        segments: ArraySlice<RouteTemplateSegment>, template: String, names: [String], method: HTTPMethod,
        responder: any HTTPResponder
    ) {
        guard let first = segments.first else {
            var route = self.route ?? Route(template: template, parameterNames: names)
            precondition(
                route.parameterNames == names,
                "routes \(route.template) and \(template) name their parameters differently")
            precondition(route.responders[method] == nil, "route \(method) \(template) is registered twice")
            route.responders[method] = responder
            self.route = route
            return
        }
        let rest = segments.dropFirst()
        switch first {
        case .literal(let text):
            var child = literals[text] ?? RouteNode()
            child.insert(segments: rest, template: template, names: names, method: method, responder: responder)
            literals[text] = child
        case .parameter:
            var child = parameter.first ?? RouteNode()
            child.insert(segments: rest, template: template, names: names, method: method, responder: responder)
            parameter = [child]
        }
    }

    /// Finds the route for decoded `segments`, preferring literal over parameter children and
    /// backtracking when a literal branch dead-ends. A parameter never matches an empty segment. Parameter values are appended to `values`.
    func match(_ segments: ArraySlice<String>, values: inout [String]) -> Route? {
        guard let first = segments.first else { return route }
        let rest = segments.dropFirst()
        if let child = literals[first], let found = child.match(rest, values: &values) { return found }
        if let child = parameter.first, !first.isEmpty {
            values.append(first)
            if let found = child.match(rest, values: &values) { return found }
            values.removeLast()
        }
        return nil
    }
}

/// A parsed template segment.
enum RouteTemplateSegment: Sendable {
    case literal(String)
    case parameter(String)

    /// Splits "/v1/users/{user}" into segments the same way request paths are split.
    static func parse(_ template: String) -> [RouteTemplateSegment] {
        precondition(template.hasPrefix("/"), "route template \(template) must start with /")
        return template.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { part in
            if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(String(part))
        }
    }
}
