/// How much of a service is granted (SPEC §2): a lowerCamel name, ordered per service
/// weakest first by its `ServiceDefinition`.
public struct Level: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Validates the syntax (lowerCamel, at most 64 characters). Whether the service has
    /// the level is checked against its `ServiceDefinition`.
    /// - Throws: `PermissionError.invalidArgument(field: "level", ...)`.
    public init(_ raw: String) throws(PermissionError) {
        guard IdentifierSyntax.isLowerCamel(raw) else {
            throw .invalidArgument(field: "level", why: "must be lowerCamel: ^[a-z][A-Za-z0-9]{0,63}$")
        }
        rawValue = raw
    }

    /// Wraps a value already validated (built in, or read back from the store); not for input.
    package init(trusted raw: String) { rawValue = raw }

    public var description: String { rawValue }
    /// Lexical order, for deterministic listings only; strength is per service.
    public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

    public static let whenInUse = Level(trusted: "whenInUse")
    public static let always = Level(trusted: "always")
    public static let addOnly = Level(trusted: "addOnly")
    public static let limited = Level(trusted: "limited")
    public static let full = Level(trusted: "full")
    public static let writeOnly = Level(trusted: "writeOnly")
}
