public import Foundation

/// The answer of `POST /v1/users/{user}/consent-sessions` (201, SPEC §10): the session's id
/// (for `DELETE /v1/consent-sessions/{id}`), the one-time link to give the user, and when the
/// session ends. The link's token is shown this once; only its hash is stored.
public struct ConsentSessionLink: Codable, Sendable, Equatable {
    public var id: String
    /// `<--public-url>/consent/start?token=<token>`, or relative without `--public-url`.
    public var url: String
    public var expiresAt: Date

    public init(id: String, url: String, expiresAt: Date) {
        self.id = id
        self.url = url
        self.expiresAt = expiresAt
    }
}
