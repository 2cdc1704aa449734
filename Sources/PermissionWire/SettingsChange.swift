/// The body of `PUT /v1/users/{user}/apps/{app}/authorizations/{service}` (SPEC §4 Settings):
/// `{"status": "authorized", "level": "always"}`, `{"status": "denied"}` or
/// `{"status": "notDetermined"}` (Ask Next Time).
public struct SettingsChange: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["status", "level"]

    public var status: Authorization.Status
    /// Required with `authorized`, refused otherwise (checked by the service).
    public var level: String?

    public init(status: Authorization.Status, level: String? = nil) {
        self.status = status
        self.level = level
    }
}
