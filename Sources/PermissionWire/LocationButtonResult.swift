/// The answer to `POST .../authorizations/location/button` (SPEC §11, HIG "Location button"):
/// - `200 OK`, `outcome` `granted`: Allow Once was granted without a prompt (the user had
///   confirmed the button); `authorization` is the new grant, with its `expiresAt`.
/// - `200 OK`, `outcome` `unchanged`: nothing was written; `why` says why
///   (`alreadyAuthorized`, `denied`, `restricted`, `servicesDisabled`).
/// - `202 Accepted`, `outcome` `prompted`: the button's prompt (kind `locationButton`, choices
///   `allowOnce` and `deny`) is pending, the same one while pending; `prompt` is present exactly then.
public struct LocationButtonResult: Codable, Sendable, Equatable {
    public var outcome: Outcome
    /// Why nothing changed; present exactly when `outcome` is `unchanged`.
    public var why: Standing?
    public var authorization: Authorization
    /// The pending prompt; present exactly when `outcome` is `prompted`.
    public var prompt: Prompt?

    public init(outcome: Outcome, why: Standing? = nil, authorization: Authorization, prompt: Prompt? = nil) {
        self.outcome = outcome
        self.why = why
        self.authorization = authorization
        self.prompt = prompt
    }

    /// What the press did.
    public enum Outcome: String, WireEnum {
        case granted, unchanged, prompted
    }

    /// Why a press changed nothing.
    public enum Standing: String, WireEnum {
        case alreadyAuthorized, denied, restricted, servicesDisabled
    }
}
