/// One route: the responder per method for a template, the names of its parameters in path
/// order, and the ordinal of the path segment each parameter takes. Immutable and shared: a
/// match hands out a reference, not a copy of its arrays; adding a method makes a new one, so
/// a copied `Router` never changes behind the copy's back.
final class Route: Sendable {
    struct Handler: Sendable {
        let method: HTTPMethod
        let responder: any HTTPResponder
        let execution: RouteExecution
    }

    let template: String
    let parameterNames: [String]
    let parameterOrdinals: [Int]
    /// One entry per method, in registration order: a route has a handful, so a linear scan
    /// comparing short method strings beats hashing them on every request.
    let handlers: [Handler]
    /// What answers OPTIONS when no handler of the route does (``handler(for:)``).
    private let optionsHandler: Handler

    init(template: String, parameterNames: [String], parameterOrdinals: [Int], handlers: [Handler] = []) {
        self.template = template
        self.parameterNames = parameterNames
        self.parameterOrdinals = parameterOrdinals
        self.handlers = handlers
        optionsHandler = Self.options(allowing: Self.allowedMethods(of: handlers))
    }

    /// A handler answering OPTIONS with `204` and `Allow: allowed` (RFC 9110 §9.3.7), inline.
    static func options(allowing allowed: [String]) -> Handler {
        let allow = allowed.joined(separator: ", ")
        return Handler(
            method: .options,
            responder: ClosureResponder { _, _ in
                HTTPResponse(status: .noContent, headers: ["Allow": allow], body: .bytes([]))
            },
            execution: RouteExecution(fixed: .eventLoop, decide: nil))
    }

    /// This route with `handler` added.
    func adding(_ handler: Handler) -> Route {
        Route(
            template: template, parameterNames: parameterNames, parameterOrdinals: parameterOrdinals,
            handlers: handlers + [handler])
    }

    /// The handler of `method`; HEAD falls back to GET (RFC 9110 §9.3.2), and OPTIONS, unless
    /// the route has a handler of its own, says which methods it allows (§9.3.7).
    func handler(for method: HTTPMethod) -> Handler? {
        if let found = handlers.first(where: { $0.method == method }) { return found }
        if method == .head, let get = handlers.first(where: { $0.method == .get }) { return get }
        if method == .options { return optionsHandler }
        return nil
    }

    /// The methods answered, for `Allow` (HEAD wherever GET is, OPTIONS everywhere).
    var allowedMethods: [String] { Self.allowedMethods(of: handlers) }

    private static func allowedMethods(of handlers: [Handler]) -> [String] {
        var allowed = Set(handlers.map(\.method.rawValue))
        if allowed.contains("GET") { allowed.insert("HEAD") }
        allowed.insert("OPTIONS")
        return allowed.sorted()
    }
}

/// A node of the segment trie as `Router` builds it (a value, so a copied router is independent):
/// literal children by exact (decoded) segment bytes, at most one parameter child, and the route
/// that ends here. Literals are a short array compared byte-wise rather than a dictionary, so a
/// lookup builds no `String` and hashes nothing. `FrozenRouteNode` is what requests walk.
struct RouteNode: Sendable {
    var literals: [(bytes: [UInt8], node: RouteNode)] = []
    /// Zero or one element: the child matching any single non-empty segment.
    var parameter: [RouteNode] = []
    var route: Route?

    /// The methods of this node's route and every route below it.
    var methods: Set<String> {
        var methods = Set(route?.allowedMethods ?? [])
        for child in literals.map(\.node) + parameter { methods.formUnion(child.methods) }
        return methods
    }

    /// Inserts `responder` for `method` at the template's segments.
    mutating func insert(
        segments: ArraySlice<RouteTemplateSegment>, template: String, names: [String], ordinals: [Int],
        method: HTTPMethod, responder: any HTTPResponder, execution: RouteExecution
    ) {
        guard let first = segments.first else {
            let route = self.route ?? Route(template: template, parameterNames: names, parameterOrdinals: ordinals)
            precondition(
                route.parameterNames == names,
                "routes \(route.template) and \(template) name their parameters differently")
            precondition(!route.handlers.contains { $0.method == method }, "route \(method) \(template) is registered twice")
            self.route = route.adding(Route.Handler(method: method, responder: responder, execution: execution))
            return
        }
        let rest = segments.dropFirst()
        switch first {
        case .literal(let text):
            let bytes = Array(text.utf8)
            if let index = literals.firstIndex(where: { $0.bytes == bytes }) {
                literals[index].node.insert(
                    segments: rest, template: template, names: names, ordinals: ordinals, method: method,
                    responder: responder, execution: execution)
            } else {
                var child = RouteNode()
                child.insert(
                    segments: rest, template: template, names: names, ordinals: ordinals, method: method,
                    responder: responder, execution: execution)
                literals.append((bytes, child))
            }
        case .parameter:
            var child = parameter.first ?? RouteNode()
            child.insert(
                segments: rest, template: template, names: names, ordinals: ordinals, method: method,
                responder: responder, execution: execution)
            parameter = [child]
        }
    }
}

/// The trie as `RouterResponder` walks it: built once from the `RouteNode`s, immutable, and made
/// of objects, so that walking it borrows each node instead of copying its arrays (copying the
/// nodes' arrays cost more than the comparisons).
final class FrozenRouteNode: Sendable {
    /// Literal children: the (decoded) segment bytes and the node, at the same index, and a
    /// fingerprint of each (`fingerprint(of:)`) compared first, so that the scan of the children
    /// touches plain integers and only a likely match reads the bytes.
    private let literalBytes: [[UInt8]]
    private let literalFingerprints: [UInt64]
    private let literalNodes: [FrozenRouteNode]
    /// The child matching any single non-empty segment.
    private let parameter: FrozenRouteNode?
    private let route: Route?

    /// Every method some route answers (HEAD and OPTIONS included), for `OPTIONS *`.
    let allMethods: [String]

    init(_ node: RouteNode) {
        allMethods = node.methods.sorted()
        literalBytes = node.literals.map(\.bytes)
        literalFingerprints = node.literals.map { $0.bytes.withUnsafeBufferPointer(Self.fingerprint(of:)) }
        literalNodes = node.literals.map { FrozenRouteNode($0.node) }
        parameter = node.parameter.first.map(FrozenRouteNode.init)
        route = node.route
    }

    /// Finds the route for the path segments of `path` from byte offset `start` (nil: no segment
    /// left), preferring literal over parameter children and backtracking when a literal branch
    /// dead-ends. A parameter never matches an empty segment. `decode`: the path holds a "%",
    /// so segments with one are compared decoded (the caller checked they all decode).
    func match(_ path: UnsafeBufferPointer<UInt8>, from start: Int?, decode: Bool) -> Route? {
        guard let start else { return route }
        let end = PathSegments.end(of: path, from: start)
        let next: Int? = end < path.count ? end + 1 : nil
        let raw = UnsafeBufferPointer(rebasing: path[start..<end])
        if !literalBytes.isEmpty {
            if decode && raw.contains(ASCII.percent) {
                if var decoded = PathSegments.decode(raw),
                    let index = decoded.withUTF8({ literalIndex(of: $0) }),
                    let found = literalNodes[index].match(path, from: next, decode: decode)
                {
                    return found
                }
            } else if let index = literalIndex(of: raw),
                let found = literalNodes[index].match(path, from: next, decode: decode)
            {
                return found
            }
        }
        if let parameter, !raw.isEmpty, let found = parameter.match(path, from: next, decode: decode) {
            return found
        }
        return nil
    }

    /// The index of the literal child equal to `segment`, if any.
    @inline(__always)
    private func literalIndex(of segment: UnsafeBufferPointer<UInt8>) -> Int? {
        let wanted = Self.fingerprint(of: segment)
        for index in literalFingerprints.indices where literalFingerprints[index] == wanted {
            if PathSegments.equal(literalBytes[index], segment) { return index }
        }
        return nil
    }

    /// The length in the low byte and the first seven bytes above it: equal segments have equal
    /// fingerprints, and most different ones differ in length or start.
    @inline(__always)
    private static func fingerprint(of segment: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var value = UInt64(truncatingIfNeeded: segment.count)
        for index in 0..<min(segment.count, 7) { value |= UInt64(segment[index]) << (8 * UInt64(index + 1)) }
        return value
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
