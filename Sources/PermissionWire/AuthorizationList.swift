/// A page of authorizations (`GET /v1/users/{user}/authorizations`,
/// `GET /v1/apps/{app}/services/{service}/users`). `nextCursor` is absent on the last page;
/// pass it as `after` for the next one.
public struct AuthorizationList: Codable, Sendable, Equatable {
    public var items: [Authorization]
    public var nextCursor: String?

    public init(items: [Authorization], nextCursor: String? = nil) {
        self.items = items
        self.nextCursor = nextCursor
    }
}
