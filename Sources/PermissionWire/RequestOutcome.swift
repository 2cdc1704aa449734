/// The answer to `POST .../authorizations/{service}/request`, one shape for both outcomes:
/// - `200 OK`: `{"authorization": {...}}`, no `prompt` member; the system remembered the
///   answer (or the status is restricted/denied/already sufficient) and will not prompt.
/// - `202 Accepted`: `{"authorization": {...}, "prompt": {...}}`; the authorization is still
///   `notDetermined` and the consent UI must show `prompt` (the same prompt while pending).
public struct RequestOutcome: Codable, Sendable, Equatable {
    public var authorization: Authorization
    /// The pending prompt; present exactly when the status code is 202.
    public var prompt: Prompt?

    public init(authorization: Authorization, prompt: Prompt? = nil) {
        self.authorization = authorization
        self.prompt = prompt
    }
}
