/// Where a route's requests run: one ``HTTPExecution`` for all of them, or a choice made per
/// request by `decide` (see ``Router/on(_:_:execution:decide:responder:)``).
struct RouteExecution: Sendable {
    /// The choice when there is no `decide`.
    let fixed: HTTPExecution
    /// Asked on the event loop with the request's head and a context holding the route's
    /// parameters.
    let decide: (@Sendable (HTTPRequestHead, RequestContext) -> HTTPExecution)?
}
