import Foundation

/// Why a body could not be read: the kind (which problem type it maps to), where (a JSON
/// Pointer, RFC 6901, `""` for the whole document) and a human message.
///
/// `description` reads like `level: expected a string` or `unknown member 'levle'`.
public struct WireDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, coarsely; each kind maps to one problem type.
    public enum Kind: String, Sendable, Equatable {
        /// Not well-formed strict JSON (syntax, UTF-8, nesting, duplicate members).
        case invalidJSON
        /// The body is over the size limit.
        case tooLarge
        /// A member the body type does not have (most likely a typo).
        case unknownMember
        /// Well-formed JSON of the wrong shape: a wrong type, a missing member, a bad value.
        case invalidValue
    }

    public var kind: Kind
    /// A JSON Pointer (RFC 6901) to the offending value; `""` is the whole document.
    public var path: String
    public var message: String

    public init(kind: Kind, path: String, message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    /// `path: message` with the pointer's leading slash dropped, or just the message at the root.
    public var description: String {
        path.isEmpty ? message : "\(path.dropFirst()): \(message)"
    }

    /// The problem type the server answers with: `invalid-json` (400), `payload-too-large`
    /// (413), `unknown-member` (400) or `invalid-request` (400).
    public var problemType: ProblemType {
        switch kind {
        case .invalidJSON: .invalidJSON
        case .tooLarge: .payloadTooLarge
        case .unknownMember: .unknownMember
        case .invalidValue: .invalidRequest
        }
    }

    /// Builds a JSON Pointer from reference tokens, escaping `~` and `/` (RFC 6901 §3).
    /// - Parameter tokens: member names or array indices, outermost first.
    public static func pointer<S: Sequence<String>>(_ tokens: S) -> String {
        var pointer = ""
        for token in tokens {
            pointer += "/" + token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        }
        return pointer
    }
}
