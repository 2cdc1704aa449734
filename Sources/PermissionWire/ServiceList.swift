/// The catalogue (`GET /v1/services`), built-in services first.
public struct ServiceList: Codable, Sendable, Equatable {
    public var items: [ServiceDefinition]

    public init(items: [ServiceDefinition]) {
        self.items = items
    }
}
