/// An AuthZEN subject or resource (Authorization API 1.0 §5.1, §5.2): here the subject is
/// `{"type": "app", "id": <bundle id>}` and the resource `{"type": "user", "id": <user>}`.
/// A `properties` object is accepted on requests and not used.
public struct AccessEntity: Codable, Equatable, Sendable {
    public var type: String
    public var id: String

    public init(type: String, id: String) {
        self.type = type
        self.id = id
    }

    /// The subject naming `app`.
    public static func app(_ id: String) -> AccessEntity { AccessEntity(type: "app", id: id) }
    /// The resource naming `user`.
    public static func user(_ id: String) -> AccessEntity { AccessEntity(type: "user", id: id) }
}
