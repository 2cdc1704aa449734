/// Middleware composed around a responder once, at build time: each link holds its middleware
/// and the next responder, so a request walks the chain without allocating (HB's
/// `MiddlewareGroup`). The first middleware runs outermost.
public struct MiddlewareChain: HTTPResponder {
    private let head: any HTTPResponder

    /// - Parameters:
    ///   - middleware: outermost first.
    ///   - responder: the innermost responder, usually the router.
    public init(_ middleware: [any HTTPMiddleware], responder: any HTTPResponder) {
        var next = responder
        for item in middleware.reversed() { next = Link(middleware: item, next: next) }
        head = next
    }

    public func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        try head.respond(to: request, context: context)
    }

    /// The innermost responder's choice: middleware must be quick and never block.
    public func execution(for head: HTTPRequestHead) -> HTTPExecution {
        self.head.execution(for: head)
    }

    public func prepare(_ head: HTTPRequestHead, context: inout RequestContext) -> HTTPExecution {
        self.head.prepare(head, context: &context)
    }

    private struct Link: HTTPResponder {
        let middleware: any HTTPMiddleware
        let next: any HTTPResponder

        func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
            try middleware.respond(to: request, context: context, next: next)
        }

        func execution(for head: HTTPRequestHead) -> HTTPExecution { next.execution(for: head) }

        func prepare(_ head: HTTPRequestHead, context: inout RequestContext) -> HTTPExecution {
            next.prepare(head, context: &context)
        }
    }
}
