/// The body of `POST .../authorizations/{service}/request`: the level the app asks for
/// (SPEC §4 Request).
public struct AccessRequest: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["level"]

    public var level: String

    public init(level: String) {
        self.level = level
    }
}
