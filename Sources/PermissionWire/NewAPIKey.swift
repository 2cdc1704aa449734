/// The body of `POST /v1/keys`: the role of the key to issue, the app an `app` key is bound
/// to, and an optional label.
public struct NewAPIKey: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["role", "app", "name"]

    public var role: APIKey.Role
    public var app: String?
    public var name: String?

    public init(role: APIKey.Role, app: String? = nil, name: String? = nil) {
        self.role = role
        self.app = app
        self.name = name
    }
}
