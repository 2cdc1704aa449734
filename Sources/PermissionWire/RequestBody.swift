/// A request body type: decoded strictly by `WireDecoder.decode(_:from:limits:)`, which rejects
/// top-level members outside `allowedKeys` so that a typo (`levle`) is an error rather than a
/// silently ignored member.
public protocol RequestBody: Decodable, Sendable {
    /// Every top-level member name the body may contain.
    static var allowedKeys: Set<String> { get }
    /// Optional members that may be left out but not sent as `null`.
    static var notNullable: Set<String> { get }
}

extension RequestBody {
    /// Optional members that may be left out but not sent as `null` (their schema has no null).
    public static var notNullable: Set<String> { [] }
}
