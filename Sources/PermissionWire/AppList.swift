/// A page of apps (`GET /v1/apps`); `nextCursor` is absent on the last page.
public struct AppList: Codable, Sendable, Equatable {
    public var items: [App]
    public var nextCursor: String?

    public init(items: [App], nextCursor: String? = nil) {
        self.items = items
        self.nextCursor = nextCursor
    }
}
