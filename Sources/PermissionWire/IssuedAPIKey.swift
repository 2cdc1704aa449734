/// The answer of `POST /v1/keys` (201): the key and its secret, shown this once (only a hash
/// of it is stored). Use it as `Authorization: Bearer <secret>`.
public struct IssuedAPIKey: Codable, Sendable, Equatable {
    public var key: APIKey
    public var secret: String

    public init(key: APIKey, secret: String) {
        self.key = key
        self.secret = secret
    }
}
