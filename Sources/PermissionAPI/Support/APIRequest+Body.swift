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
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard let mediaType else { return false }
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }
}
