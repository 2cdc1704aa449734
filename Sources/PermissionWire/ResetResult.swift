/// The answer to `POST /v1/reset`: how many records changed or had a prompt cancelled.
public struct ResetResult: Codable, Sendable, Equatable {
    public var count: Int64

    public init(count: Int64) {
        self.count = count
    }
}
