/// What a request answers (SPEC §4 Request).
public enum RequestOutcome: Hashable, Sendable {
    /// No prompt: the authorization as it stands (HTTP 200).
    case decided(Authorization)
    /// A prompt is pending (new, or the one already pending) and the authorization as it stands (HTTP 202).
    case prompted(Prompt, Authorization)

    /// The authorization in either case.
    public var authorization: Authorization {
        switch self {
        case .decided(let authorization), .prompted(_, let authorization): authorization
        }
    }

    /// The pending prompt, if any.
    public var prompt: Prompt? {
        if case .prompted(let prompt, _) = self { return prompt }
        return nil
    }
}
