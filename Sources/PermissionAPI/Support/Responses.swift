import HTTPCore
import PermissionDomain
import PermissionWire

/// Response builders: JSON through `WireEncoder`, and the hot authorization through its
/// hand-written encoder (no JSONEncoder, no Foundation date formatting).
enum Responses {
    static let json = "application/json"

    /// `value` as `application/json`.
    /// - Throws: `EncodingError` (never for wire shapes).
    static func json<T: Encodable>(
        _ value: T, status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders()
    ) throws
        -> HTTPResponse
    {
        var fields = headers
        fields.replaceOrAdd(name: "Content-Type", value: json)
        return HTTPResponse(status: status, headers: fields, body: .bytes(try WireEncoder.encode(value)))
    }

    /// The answer to a `PUT`: 201 with `Location` when it created the resource, else 200
    /// (RFC 9110 §9.3.4).
    static func put<T: Encodable>(_ value: T, created: Bool, location: String) throws -> HTTPResponse {
        created ? try json(value, status: .created, headers: ["Location": location]) : try json(value)
    }

    /// One authorization with its `ETag` (SPEC §3), encoded by hand: the hot path.
    static func authorization(_ value: PermissionDomain.Authorization, status: HTTPStatus = .ok) -> HTTPResponse {
        let bytes = WireMapping.authorization(value).jsonBytes  // sized by the encoder: one allocation
        // Built in place: a dictionary literal would make an array of its elements and copy it.
        var headers = HTTPHeaders(minimumCapacity: 5)  // room for what middleware adds (X-Request-Id, the revision)
        headers.add(name: "Content-Type", value: json)
        headers.add(name: "ETag", value: value.etag)
        headers.add(name: "Cache-Control", value: authorizationCaching)
        return HTTPResponse(status: status, headers: headers, body: .bytes(bytes))
    }

    /// An authorization may be kept by a client's cache but never used without asking again
    /// (RFC 9111 §5.2.2.4): a revoked grant must not be answered from a cache's heuristic
    /// freshness. The `ETag` makes asking again cheap (`If-None-Match`, 304).
    static let authorizationCaching = "no-cache"

    /// 304 Not Modified: the fields of the 200 it stands for that a cache updates, no body
    /// (RFC 9110 §15.4.5).
    static func notModified(etag: String) -> HTTPResponse {
        HTTPResponse(status: .notModified, headers: ["ETag": etag, "Cache-Control": authorizationCaching])
    }

    static func noContent() -> HTTPResponse { HTTPResponse(status: .noContent) }
}
