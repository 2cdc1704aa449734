/// A page of effective authorizations. A page may hold fewer than `limit` items (even none)
/// while `nextAfter` is set: continue from `nextAfter` until it is nil.
public struct AuthorizationPage: Hashable, Sendable {
    public let items: [Authorization]
    /// The cursor of the next page; nil at the end.
    public let nextAfter: AuthorizationKey?

    public init(items: [Authorization], nextAfter: AuthorizationKey?) {
        self.items = items
        self.nextAfter = nextAfter
    }
}
