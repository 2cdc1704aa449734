/// Middleware composed around a responder once, at build time: each link holds its middleware
/// and the next responder, so a request walks the chain without allocating (HB's
/// `MiddlewareGroup`). The first middleware runs outermost.
public struct MiddlewareChain: HTTPResponder {
    private let head: any HTTPResponder
    /// The innermost responder, which alone prepares a request: middleware has no say in where
    /// a request runs, so the chain is walked once, by `respond`.
    private let innermost: any HTTPResponder

    /// - Parameters:
    ///   - middleware: outermost first.
    ///   - responder: the innermost responder, usually the router.
    public init(_ middleware: [any HTTPMiddleware], responder: any HTTPResponder) {
        var next = responder
        for item in middleware.reversed() { next = Link(middleware: item, next: next) }
        head = next
        innermost = responder
    }

    public func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        try head.respond(to: request, context: context)
    }

    /// The innermost responder's `prepare`, before any middleware runs.
    public func prepare(_ head: HTTPRequestHead, context: inout RequestContext) -> HTTPExecution {
        innermost.prepare(head, context: &context)
    }

    private struct Link: HTTPResponder {
        let middleware: any HTTPMiddleware
        let next: any HTTPResponder

        func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
            try middleware.respond(to: request, context: context, next: next)
        }
    }
}
