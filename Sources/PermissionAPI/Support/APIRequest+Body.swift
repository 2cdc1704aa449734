import HTTPCore
import PermissionWire

extension APIRequest {
    /// Strictly decodes the JSON body as `T` (RFC 8259 via `StrictJSON`, unknown members refused).
    /// - Throws: `APIProblem` 413 over `maxBodyBytes`, 415 unless `Content-Type` is JSON
    ///   (RFC 9110 §8.3, §15.5.16); `WireDecodingError` (400) for malformed or unknown members.
    func decode<T: RequestBody>(_ type: T.Type) throws -> T {
        try checkBodySize()
        guard Self.isJSON(headers["Content-Type"]) else { throw notJSON }
        return try WireDecoder.decode(
            type, from: http.body, limits: StrictJSON.Limits(maxBytes: configuration.maxBodyBytes))
    }

    /// 415 for a body that is not JSON: saying so when none was sent at all, and offering
    /// `Accept-Post` on a `POST` only (the field is about POST, RFC 9110 §15.5.16 leaves a PUT's
    /// formats to the description).
    var notJSON: APIProblem {
        let detail =
            http.body.isEmpty && headers["Content-Type"] == nil
            ? "This request needs a JSON body (Content-Type: application/json); none was sent."
            : "The body must be JSON in UTF-8: Content-Type application/json or a +json type, with no other charset."
        return APIProblem(
            .unsupportedMediaType, detail,
            headers: http.head.method == .post ? ["Accept-Post": "application/json"] : HTTPHeaders())
    }

    /// - Throws: `APIProblem` 413 when the body is over `maxBodyBytes`.
    func checkBodySize() throws {
        guard http.body.count <= configuration.maxBodyBytes else {
            throw APIProblem(
                .payloadTooLarge,
                "The body of \(http.body.count) bytes is larger than the limit of \(configuration.maxBodyBytes) bytes.")
        }
    }

    /// `application/json` or a `+json` structured syntax suffix (RFC 6839 §3.1), with no
    /// `charset` but UTF-8 (JSON is UTF-8, RFC 8259 §8.1; the parameter means nothing to it, but
    /// a client that names another encoding sent it in that one). Compared byte by byte, ASCII
    /// case-insensitively (media types are ASCII, RFC 9110 §8.3.1), after trimming spaces and
    /// tabs: every write's body passes here.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType, isJSONMediaType(contentType) else { return false }
        return !contentType.utf8.contains(UInt8(ascii: ";")) || !namesAnotherCharset(contentType)
    }

    /// Whether a `charset` parameter of `contentType` names another encoding than UTF-8.
    private static func namesAnotherCharset(_ contentType: String) -> Bool {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pieces = parameter.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2, trimmed(pieces[0]).lowercased() == "charset" else { continue }
            let value = trimmed(pieces[1]).filter { $0 != "\"" }.lowercased()
            if value != "utf-8" && value != "utf8" { return true }
        }
        return false
    }

    /// `text` without the spaces and tabs around it.
    private static func trimmed(_ text: Substring) -> Substring {
        let isBlank = { (character: Character) in character == " " || character == "\t" }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return text[first...last]
    }

    private static func isJSONMediaType(_ contentType: String) -> Bool {
        var contentType = contentType
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
