/// A page of policies (`GET /v1/policies`); `nextCursor` is absent on the last page.
public struct PolicyList: Codable, Sendable, Equatable {
    public var items: [Policy]
    public var nextCursor: String?

    public init(items: [Policy], nextCursor: String? = nil) {
        self.items = items
        self.nextCursor = nextCursor
    }
}
