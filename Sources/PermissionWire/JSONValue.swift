/// A JSON document as `StrictJSON` reads it (RFC 8259 §3). Numbers are kept as their source
/// text, so that no precision is lost and huge values stay representable; objects have unique
/// member names (duplicates are rejected while parsing).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number exactly as written, e.g. `-1.5e300`.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The members of an object, or `nil` for any other value.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The text of a string, or `nil` for any other value.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A short name of the value's kind for error messages ("an object", "a string", ...).
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
