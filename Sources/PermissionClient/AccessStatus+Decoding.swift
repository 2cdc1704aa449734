import PermissionWire

extension AccessStatus {
    /// Reads `status` and `level` from an `Authorization` body with the strict reader, without
    /// decoding the rest (no dates, no `JSONDecoder`).
    /// - Parameter body: the UTF-8 JSON body.
    /// - Throws: `WireDecodingError` for malformed JSON or a missing or unknown status.
    static func decode(_ body: [UInt8]) throws(WireDecodingError) -> AccessStatus {
        let limits = StrictJSON.Limits(maxBytes: ResponseSink.maxBodyBytes, maxDepth: 32)
        guard let members = try StrictJSON.parse(body, limits: limits).objectValue else {
            throw WireDecodingError(kind: .invalidValue, path: "", message: "expected an object")
        }
        guard let text = members["status"]?.stringValue else {
            throw WireDecodingError(kind: .invalidValue, path: "/status", message: "expected a string")
        }
        switch Authorization.Status(rawValue: text) {
        case .notDetermined: return .notDetermined
        case .restricted: return .restricted
        case .denied: return .denied
        case .authorized:
            guard let level = members["level"]?.stringValue else {
                throw WireDecodingError(kind: .invalidValue, path: "/level", message: "an authorized status needs a level")
            }
            return .authorized(level: level)
        case nil:
            throw WireDecodingError(kind: .invalidValue, path: "/status", message: "unknown status '\(text)'")
        }
    }
}
