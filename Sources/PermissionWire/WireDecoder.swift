public import Foundation

/// Decodes wire bodies. Requests go through `decode`: `StrictJSON` first (size, UTF-8,
/// nesting, duplicates, syntax), then unknown top-level members are refused, then the value is
/// built from the parsed members (a ``MemberwiseRequestBody``) or by `JSONDecoder`; every
/// failure is one `WireDecodingError`. Responses (in the SDK) go through `decodeResponse`, which
/// tolerates members a newer server may add.
public enum WireDecoder {
    /// Strictly decodes a request body.
    /// - Parameters:
    ///   - type: the body type; its `allowedKeys` bound the top-level members.
    ///   - bytes: the UTF-8 body.
    ///   - limits: size and nesting bounds for `StrictJSON`.
    /// - Throws: `WireDecodingError` with a JSON Pointer path and a human message.
    public static func decode<T: RequestBody>(
        _ type: T.Type, from bytes: [UInt8], limits: StrictJSON.Limits = StrictJSON.Limits()
    ) throws(WireDecodingError) -> T {
        try decode(type, from: bytes, limits: limits, memberwise: true)
    }

    /// `decode`, with `memberwise: false` building even a ``MemberwiseRequestBody`` with
    /// `JSONDecoder` (the tests compare the two).
    package static func decode<T: RequestBody>(
        _ type: T.Type, from bytes: [UInt8], limits: StrictJSON.Limits = StrictJSON.Limits(), memberwise: Bool
    ) throws(WireDecodingError) -> T {
        let document = try StrictJSON.parse(bytes, limits: limits)
        guard let members = document.objectValue else {
            throw WireDecodingError(
                kind: .invalidValue, path: "", message: "expected an object, found \(document.kindDescription)")
        }
        if let unknown = members.keys.filter({ !T.allowedKeys.contains($0) }).min() {
            throw WireDecodingError(
                kind: .unknownMember, path: WireDecodingError.pointer([unknown]),
                message: "unknown member '\(unknown)'")
        }
        if let null = T.notNullable.filter({ members[$0] == .null }).min() {
            throw WireDecodingError(
                kind: .invalidValue, path: WireDecodingError.pointer([null]),
                message: "'\(null)' may be left out but not null")
        }
        if memberwise, let memberwiseType = type as? any MemberwiseRequestBody.Type {
            // The cast cannot fail: `memberwiseType` is `T`.
            return try memberwiseType.init(members: members) as! T
        }
        return try decodeChecked(type, from: bytes)
    }

    /// Decodes a response body leniently: unknown members are ignored (forward compatibility).
    /// - Parameters:
    ///   - type: the shape to decode.
    ///   - bytes: the UTF-8 body.
    /// - Throws: `WireDecodingError` with a JSON Pointer path and a human message.
    public static func decodeResponse<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(WireDecodingError) -> T {
        try decodeChecked(type, from: bytes)
    }

    /// The message for a string that is not a timestamp.
    static let timestampExpectation = "expected an RFC 3339 timestamp such as 2026-11-22T10:00:00.000Z"

    /// A `JSONDecoder` configured for the wire format (timestamps via `Timestamp.parse`).
    public static func makeJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: timestampExpectation)
            }
            return date
        }
        return decoder
    }

    private static func decodeChecked<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(WireDecodingError) -> T {
        do {
            return try makeJSONDecoder().decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            throw describe(error)
        } catch {
            throw WireDecodingError(kind: .invalidValue, path: "", message: String(describing: error))
        }
    }

    /// Turns a `DecodingError` into a path and a message such as "expected a string".
    static func describe(_ error: DecodingError) -> WireDecodingError {
        switch error {
        case .typeMismatch(let type, let context):
            return WireDecodingError(
                kind: .invalidValue, path: pointer(context.codingPath),
                message: "expected \(describeType(type))")
        case .valueNotFound(let type, let context):
            return WireDecodingError(
                kind: .invalidValue, path: pointer(context.codingPath),
                message: "expected \(describeType(type)), found null")
        case .keyNotFound(let key, let context):
            return WireDecodingError(
                kind: .invalidValue, path: pointer(context.codingPath + [key]),
                message: "required member is missing")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty, context.underlyingError != nil {
                return WireDecodingError(kind: .invalidJSON, path: "", message: "not valid JSON")
            }
            return WireDecodingError(
                kind: .invalidValue, path: pointer(context.codingPath),
                message: context.debugDescription)
        @unknown default:
            return WireDecodingError(kind: .invalidValue, path: "", message: String(describing: error))
        }
    }

    private static func pointer(_ codingPath: [any CodingKey]) -> String {
        WireDecodingError.pointer(codingPath.map { key in key.intValue.map(String.init) ?? key.stringValue })
    }

    private static func describeType(_ type: Any.Type) -> String {
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(String.self): "a string"
        case ObjectIdentifier(Bool.self): "a boolean"
        case ObjectIdentifier(Int.self), ObjectIdentifier(Int64.self), ObjectIdentifier(Int32.self),
            ObjectIdentifier(UInt.self), ObjectIdentifier(UInt64.self), ObjectIdentifier(Double.self):
            "a number"
        case ObjectIdentifier([String: Any].self): "an object"
        case ObjectIdentifier([Any].self): "an array"
        default: String(describing: type)
        }
    }
}
