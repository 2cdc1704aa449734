/// An error body, `application/problem+json` (RFC 9457 §3): the standard members plus the
/// request id and optional extension members (§3.2): `key` (the Info.plist key of a
/// `missing-purpose-string`), `allowed` (the choices of an `invalid-choice`, the methods of a
/// `method-not-allowed`), `errors` (field errors of an `invalid-request`), `limit` and
/// `pending` (the app's pending prompts of a `too-many-prompts`), and `level`,
/// `authorizations`, `pendingPrompts` and `policies` (what holds the dropped level of a `level-in-use`),
/// and `head` (the log's last seq, of a `beyond-log-head`).
public struct Problem: Codable, Sendable, Equatable, Error {
    /// One field error: a JSON Pointer (RFC 6901) into the body or a parameter name, and why.
    public struct FieldError: Codable, Sendable, Equatable {
        public var pointer: String
        public var detail: String

        public init(pointer: String, detail: String) {
            self.pointer = pointer
            self.detail = detail
        }
    }

    /// A pending prompt named by a `too-many-prompts` problem.
    public struct PendingPrompt: Codable, Sendable, Equatable {
        public var id: String
        public var service: String

        public init(id: String, service: String) {
            self.id = id
            self.service = service
        }
    }

    /// A type URI, usually `ProblemType.uri`.
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String
    /// The request path (RFC 9457 §3.1.5), when useful.
    public var instance: String?
    /// The `X-Request-Id` of the request, also in the response header.
    public var requestId: String
    public var key: String?
    public var allowed: [String]?
    public var errors: [FieldError]?
    /// The most pending prompts an app may have for a user (`too-many-prompts`).
    public var limit: Int?
    /// The app's pending prompts for the user, oldest first (`too-many-prompts`).
    public var pending: [PendingPrompt]?
    /// The level a service's new definition drops (`level-in-use`).
    public var level: String?
    /// How many stored authorizations hold that level (`level-in-use`).
    public var authorizations: Int?
    /// How many pending prompts ask for that level (`level-in-use`).
    public var pendingPrompts: Int?
    /// How many allow policies grant that level (`level-in-use`).
    public var policies: Int?
    /// The seq of the log's last entry (`beyond-log-head`): resume after it, or from 0, once
    /// what was read before is dropped.
    public var head: Int64?

    public init(
        type: String, title: String, status: Int, detail: String, instance: String? = nil,
        requestId: String, key: String? = nil, allowed: [String]? = nil, errors: [FieldError]? = nil
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.instance = instance
        self.requestId = requestId
        self.key = key
        self.allowed = allowed
        self.errors = errors
    }

    /// A problem of one of the API's stable types, with its fixed title and status.
    /// - Parameters:
    ///   - type: the problem type.
    ///   - detail: what went wrong in this occurrence (RFC 9457 §3.1.4).
    ///   - requestId: the request id.
    ///   - instance: the request path, optional.
    public init(
        _ type: ProblemType, detail: String, requestId: String, instance: String? = nil,
        key: String? = nil, allowed: [String]? = nil, errors: [FieldError]? = nil
    ) {
        self.init(
            type: type.uri, title: type.title, status: type.status, detail: detail, instance: instance,
            requestId: requestId, key: key, allowed: allowed, errors: errors)
    }

    /// The stable problem type, when `type` is one of the API's URIs.
    public var problemType: ProblemType? { ProblemType(uri: type) }
}
