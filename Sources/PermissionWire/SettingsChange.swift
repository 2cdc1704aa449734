public import Foundation

/// The body of `PUT /v1/users/{user}/apps/{app}/authorizations/{service}` (SPEC §4 Settings):
/// `{"status": "authorized", "level": "always"}`, `{"status": "denied"}` or
/// `{"status": "notDetermined"}` (Ask Next Time); `authorized` may carry `"until"` (RFC 3339),
/// an expiring grant (SPEC §11).
public struct SettingsChange: MemberwiseRequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["status", "level", "until"]
    public static let notNullable: Set<String> = ["until"]

    public var status: Authorization.Status
    /// Required with `authorized`, refused otherwise (checked by the service).
    public var level: String?
    /// When the grant ends; only with `authorized` (checked by the service).
    public var until: Date?

    public init(status: Authorization.Status, level: String? = nil, until: Date? = nil) {
        self.status = status
        self.level = level
        self.until = until
    }

    /// From the parsed body, members in declaration order (as `Decodable` reads them).
    public init(members: [String: JSONValue]) throws(WireDecodingError) {
        status = try MemberReader.wireEnum(members, "status", as: Authorization.Status.self)
        level = try MemberReader.string(ifPresent: members, "level")
        until = try MemberReader.timestamp(ifPresent: members, "until")
    }
}
