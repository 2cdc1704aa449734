/// The body of `POST /v1/users/{user}/consent-sessions`: optional, and with no members yet
/// (`{}`); the user is in the path and the lifetime is the server's `--consent-session-ttl`.
public struct NewConsentSession: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = []

    public init() {}
}
