internal import Foundation

/// A request body that builds itself from the members `StrictJSON` has already parsed, so that
/// `WireDecoder.decode` does not parse the body a second time with `JSONDecoder`. For the bodies
/// of the busiest writes (the settings `PUT`): that second parse was most of the body's cost.
///
/// The contract: for every body, the same value or the same `WireDecodingError` (kind, path,
/// message) as `JSONDecoder` would give, members checked in the order the type declares them
/// (`WireDecoderTests` compares the two paths over valid and invalid bodies).
public protocol MemberwiseRequestBody: RequestBody {
    /// - Parameter members: the body's members; unknown members and `null` where
    ///   ``RequestBody/notNullable`` forbids it are already refused.
    init(members: [String: JSONValue]) throws(WireDecodingError)
}

/// Reads members the way `JSONDecoder` and the wire's `Decodable` conformances do, with their
/// error messages (`WireDecoder.describe`).
enum MemberReader {
    /// A required string member.
    static func string(_ members: [String: JSONValue], _ key: String) throws(WireDecodingError) -> String {
        guard let value = members[key] else { throw missing(key) }
        guard let text = try optionalString(value, key) else {
            throw WireDecodingError(
                kind: .invalidValue, path: WireDecodingError.pointer([key]), message: "expected a string, found null")
        }
        return text
    }

    /// An optional string member: absent or `null` is nil.
    static func string(ifPresent members: [String: JSONValue], _ key: String) throws(WireDecodingError) -> String? {
        guard let value = members[key] else { return nil }
        return try optionalString(value, key)
    }

    /// A required member of a ``WireEnum``.
    static func wireEnum<E: WireEnum>(_ members: [String: JSONValue], _ key: String, as: E.Type) throws(WireDecodingError) -> E {
        let raw = try string(members, key)
        guard let value = E(rawValue: raw) else {
            throw WireDecodingError(kind: .invalidValue, path: WireDecodingError.pointer([key]), message: E.expectation)
        }
        return value
    }

    /// An optional timestamp member (`WireDecoder.makeJSONDecoder`'s date strategy).
    static func timestamp(ifPresent members: [String: JSONValue], _ key: String) throws(WireDecodingError) -> Date? {
        guard let text = try string(ifPresent: members, key) else { return nil }
        guard let date = Timestamp.parse(text) else {
            throw WireDecodingError(
                kind: .invalidValue, path: WireDecodingError.pointer([key]), message: WireDecoder.timestampExpectation)
        }
        return date
    }

    private static func optionalString(_ value: JSONValue, _ key: String) throws(WireDecodingError) -> String? {
        switch value {
        case .string(let text): return text
        case .null: return nil
        default:
            throw WireDecodingError(kind: .invalidValue, path: WireDecodingError.pointer([key]), message: "expected a string")
        }
    }

    private static func missing(_ key: String) -> WireDecodingError {
        WireDecodingError(kind: .invalidValue, path: WireDecodingError.pointer([key]), message: "required member is missing")
    }
}
