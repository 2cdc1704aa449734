/// The stable problem types of the API (RFC 9457 §3.1.1 `type`), each with its URI
/// `https://permissions.example/problems/<slug>`, a fixed title and the status it is sent with.
public enum ProblemType: String, Sendable, CaseIterable, Codable {
    case invalidRequest = "invalid-request"
    case invalidJSON = "invalid-json"
    case unknownMember = "unknown-member"
    case notFound = "not-found"
    case unknownService = "unknown-service"
    case unknownLevel = "unknown-level"
    case missingPurposeString = "missing-purpose-string"
    case restricted = "restricted"
    case conflict = "conflict"
    case levelInUse = "level-in-use"
    case preconditionFailed = "precondition-failed"
    case promptNotPending = "prompt-not-pending"
    case invalidChoice = "invalid-choice"
    case invalidCombination = "invalid-combination"
    case tooManyRequests = "too-many-requests"
    case tooManyPrompts = "too-many-prompts"
    case unauthorized = "unauthorized"
    case forbidden = "forbidden"
    case methodNotAllowed = "method-not-allowed"
    case payloadTooLarge = "payload-too-large"
    case requestTimeout = "request-timeout"
    case uriTooLong = "uri-too-long"
    case expectationFailed = "expectation-failed"
    case headerFieldsTooLarge = "header-fields-too-large"
    case notImplemented = "not-implemented"
    case versionNotSupported = "version-not-supported"
    case unsupportedMediaType = "unsupported-media-type"
    case unavailable = "unavailable"
    case revisionUnavailable = "revision-unavailable"
    case exportTooLarge = "export-too-large"
    case beyondLogHead = "beyond-log-head"
    case logDiverged = "log-diverged"
    case internalError = "internal"

    /// The common prefix of every problem type URI.
    public static let base = "https://permissions.example/problems/"

    /// The type URI, e.g. `https://permissions.example/problems/restricted`.
    public var uri: String { Self.base + rawValue }

    /// The problem type named by a type URI.
    /// - Parameter uri: a `type` member.
    public init?(uri: String) {
        guard uri.hasPrefix(Self.base) else { return nil }
        self.init(rawValue: String(uri.dropFirst(Self.base.count)))
    }

    /// The HTTP status code the problem is sent with (RFC 9110 §15).
    public var status: Int {
        switch self {
        case .invalidRequest, .invalidJSON, .unknownMember: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound, .unknownService: 404
        case .methodNotAllowed: 405
        case .restricted, .conflict, .levelInUse, .promptNotPending, .beyondLogHead, .logDiverged: 409
        case .preconditionFailed: 412
        case .requestTimeout: 408
        case .payloadTooLarge: 413
        case .uriTooLong: 414
        case .unsupportedMediaType: 415
        case .expectationFailed: 417
        case .unknownLevel, .missingPurposeString, .invalidChoice, .invalidCombination, .exportTooLarge: 422
        case .tooManyRequests, .tooManyPrompts: 429
        case .headerFieldsTooLarge: 431
        case .internalError: 500
        case .notImplemented: 501
        case .unavailable, .revisionUnavailable: 503
        case .versionNotSupported: 505
        }
    }

    /// The short, fixed summary (RFC 9457 §3.1.3 `title`).
    public var title: String {
        switch self {
        case .invalidRequest: "Invalid request"
        case .invalidJSON: "Malformed JSON body"
        case .unknownMember: "Unknown member in the body"
        case .notFound: "Not found"
        case .unknownService: "Unknown service"
        case .unknownLevel: "Unknown level for this service"
        case .missingPurposeString: "Missing purpose string"
        case .restricted: "Authorization is restricted"
        case .conflict: "Conflict with the current state"
        case .levelInUse: "Level still in use"
        case .preconditionFailed: "Precondition failed"
        case .promptNotPending: "Prompt is no longer pending"
        case .invalidChoice: "Choice not offered by this prompt"
        case .invalidCombination: "Fields that do not go together"
        case .tooManyRequests: "Too many requests"
        case .tooManyPrompts: "Too many pending prompts"
        case .unauthorized: "Missing or invalid API key"
        case .forbidden: "Not allowed for this key"
        case .methodNotAllowed: "Method not allowed"
        case .payloadTooLarge: "Body too large"
        case .requestTimeout: "Request not received in time"
        case .uriTooLong: "Request line too long"
        case .expectationFailed: "Expectation not supported"
        case .headerFieldsTooLarge: "Header section too large"
        case .notImplemented: "Not implemented"
        case .versionNotSupported: "HTTP version not supported"
        case .unsupportedMediaType: "Unsupported media type"
        case .unavailable: "Service unavailable"
        case .revisionUnavailable: "Revision not yet applied"
        case .exportTooLarge: "Export too large"
        case .beyondLogHead: "Position beyond the end of the log"
        case .logDiverged: "Position names another entry than was read"
        case .internalError: "Internal server error"
        }
    }
}
