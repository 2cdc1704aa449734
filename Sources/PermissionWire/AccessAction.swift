/// An AuthZEN action (Authorization API 1.0 §5.3): `name` is a service (`camera`: any level)
/// or a service and the least level it needs (`location.always`). A `properties` object is
/// accepted on requests and not used.
public struct AccessAction: Codable, Equatable, Sendable {
    public var name: String

    public init(name: String) {
        self.name = name
    }
}
