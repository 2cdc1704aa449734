/// A closed set of string values on the wire (a status, a reason, a role ...).
///
/// Decoding a value outside the set fails with "expected one of a, b, c", which
/// `WireDecoder` reports with the member's path.
public protocol WireEnum: RawRepresentable, CaseIterable, Codable, Sendable, Hashable where RawValue == String {}

extension WireEnum {
    /// Decodes the raw string, naming the allowed values when it is not one of them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard let value = Self(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: Self.expectation)
        }
        self = value
    }

    /// The message for a string that is none of the values: "expected one of" and all of them.
    static var expectation: String { "expected one of " + allCases.map(\.rawValue).joined(separator: ", ") }
}
