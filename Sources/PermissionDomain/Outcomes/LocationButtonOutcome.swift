/// What a press of the location button answers (SPEC §11).
public enum LocationButtonOutcome: Hashable, Sendable {
    /// Allow Once was granted without a prompt (HTTP 200); the authorization after the grant.
    case granted(Authorization)
    /// Nothing changed, for the reason given (HTTP 200); the authorization as it stands.
    case unchanged(LocationButtonStanding, Authorization)
    /// The button's prompt is pending, new or already pending (HTTP 202); the authorization as it stands.
    case prompted(Prompt, Authorization)

    /// The authorization in every case.
    public var authorization: Authorization {
        switch self {
        case .granted(let authorization), .unchanged(_, let authorization), .prompted(_, let authorization):
            authorization
        }
    }

    /// The pending prompt, if any.
    public var prompt: Prompt? {
        if case .prompted(let prompt, _) = self { return prompt }
        return nil
    }
}
