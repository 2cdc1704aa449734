/// The keys (`GET /v1/keys`), without secrets.
public struct APIKeyList: Codable, Sendable, Equatable {
    public var items: [APIKey]

    public init(items: [APIKey]) {
        self.items = items
    }
}
