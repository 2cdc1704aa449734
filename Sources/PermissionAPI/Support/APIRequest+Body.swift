import HTTPCore
import PermissionWire

extension APIRequest {
    /// Strictly decodes the JSON body as `T` (RFC 8259 via `StrictJSON`, unknown members refused).
    /// - Throws: `APIProblem` 413 over `maxBodyBytes`, 415 unless `Content-Type` is JSON
    ///   (RFC 9110 §8.3, §15.5.16); `WireDecodingError` (400) for malformed or unknown members.
    func decode<T: RequestBody>(_ type: T.Type) throws -> T {
        try checkBodySize()
        guard Self.isJSON(headers["Content-Type"]) else {
            throw APIProblem(
                .unsupportedMediaType, "The body must be application/json.", headers: ["Accept-Post": "application/json"])
        }
        return try WireDecoder.decode(
            type, from: http.body, limits: StrictJSON.Limits(maxBytes: configuration.maxBodyBytes))
    }

    /// - Throws: `APIProblem` 413 when the body is over `maxBodyBytes`.
    func checkBodySize() throws {
        guard http.body.count <= configuration.maxBodyBytes else {
            throw APIProblem(
                .payloadTooLarge,
                "The body of \(http.body.count) bytes is larger than the limit of \(configuration.maxBodyBytes) bytes.")
        }
    }

    /// `application/json` or a `+json` structured syntax suffix (RFC 6839 §3.1), any parameters.
    /// Compared byte by byte, ASCII case-insensitively (media types are ASCII, RFC 9110 §8.3.1),
    /// after trimming spaces and tabs: every write's body passes here.
    static func isJSON(_ contentType: String?) -> Bool {
        guard var contentType else { return false }
        return contentType.withUTF8 { bytes in
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
            var start = bytes.startIndex
            while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
            while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            let mediaType = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if equalsIgnoringCase(mediaType, "application/json") { return true }
            let type: StaticString = "application/"
            let suffix: StaticString = "+json"
            guard mediaType.count >= type.utf8CodeUnitCount + suffix.utf8CodeUnitCount else { return false }
            return equalsIgnoringCase(UnsafeBufferPointer(rebasing: mediaType.prefix(type.utf8CodeUnitCount)), type)
                && equalsIgnoringCase(UnsafeBufferPointer(rebasing: mediaType.suffix(suffix.utf8CodeUnitCount)), suffix)
        }
    }

    /// Whether `bytes` spell `lowercase` (ASCII, lowercase letters) in any case.
    private static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for (byte, wanted) in zip(bytes, expected) {
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if folded != wanted { return false }
        }
        return true
    }
}
