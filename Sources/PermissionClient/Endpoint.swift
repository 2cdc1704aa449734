import PermissionWire

/// One call of the API, typed by what it answers: the method, the encoded path and query, the
/// body, extra header fields, and how a 2xx body becomes a `Value`. `Endpoints` builds one for
/// every operation of openapi.yaml; `PermissionClient.send(_:)` (async) and
/// `PermissionClient.sendBlocking(_:)` perform it.
public struct Endpoint<Value: Sendable>: Sendable {
    /// `GET`, `PUT`, `POST` or `DELETE`.
    public let method: String
    /// The path and query, percent-encoded.
    public let path: String
    let body: (@Sendable () throws -> [UInt8])?
    private(set) var headers: [(name: String, value: String)]
    let accept: String
    let decode: @Sendable (RawResponse) throws(WireDecodingError) -> Value
    /// A `POST` that only reads (an AuthZEN evaluation, whose question is its body): retried and
    /// kept on a kept-alive connection like a `GET`.
    var readsOnly = false
    /// The position in the audit log the call reads after (an audit page's `after`), for a
    /// refusal that names it: `409 beyond-log-head` becomes `.beyondLogHead` with this position.
    var logPosition: Int64?

    init(
        method: String, path: String, body: (@Sendable () throws -> [UInt8])? = nil,
        headers: [(name: String, value: String)] = [], accept: String = "application/json",
        decode: @escaping @Sendable (RawResponse) throws(WireDecodingError) -> Value
    ) {
        self.method = method
        self.path = path
        self.body = body
        self.headers = headers
        self.accept = accept
        self.decode = decode
    }

    /// Whether the method is idempotent (RFC 9110 §9.2.2), which decides retries.
    public var isIdempotent: Bool { method != "POST" || readsOnly }

    /// This call, answered only from state that includes `revision` (a
    /// ``PermissionResponse/revision`` of an earlier write): it sends
    /// `Permission-Consistency: at-least <revision>` (SPEC §9). Behind a load balancer over
    /// several replicas, a read after one's own write otherwise may see the state before it for
    /// up to a second. A replica that does not show the revision within a second answers `503`
    /// `revision-unavailable` with `Retry-After` (the call is retried, as the policy allows); one that no write made is
    /// `412` (`.http`).
    public func consistent(atLeast revision: Int64) -> Endpoint<Value> {
        var copy = self
        copy.headers.removeAll { $0.name.lowercased() == "permission-consistency" }
        copy.headers.append((name: "Permission-Consistency", value: "at-least \(max(0, revision))"))
        return copy
    }
}

extension Endpoint where Value: Decodable {
    /// An endpoint whose 2xx body is the JSON of `Value`, read leniently (members a newer
    /// server adds are ignored).
    static func json(
        _ method: String, _ path: String, body: (@Sendable () throws -> [UInt8])? = nil,
        headers: [(name: String, value: String)] = []
    ) -> Endpoint<Value> {
        Endpoint(method: method, path: path, body: body, headers: headers) { raw throws(WireDecodingError) in
            try WireDecoder.decodeResponse(Value.self, from: raw.body)
        }
    }
}

extension Endpoint where Value == Void {
    /// An endpoint answered with `204 No Content`.
    static func empty(_ method: String, _ path: String) -> Endpoint<Void> {
        Endpoint(method: method, path: path) { _ throws(WireDecodingError) in () }
    }
}

extension Endpoint where Value == String {
    /// An endpoint whose body is text (`/metrics`, `/openapi.yaml`).
    static func text(_ path: String, accept: String) -> Endpoint<String> {
        Endpoint(method: "GET", path: path, accept: accept) { raw throws(WireDecodingError) in
            String(decoding: raw.body, as: UTF8.self)
        }
    }
}

/// Encodes a request body lazily with the wire encoder (sorted keys, wire timestamps).
@inline(__always)
func jsonBody<T: Encodable & Sendable>(_ value: T) -> @Sendable () throws -> [UInt8] {
    { try WireEncoder.encode(value) }
}
