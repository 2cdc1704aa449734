/// Why a consent link's token was not exchanged for a session (SPEC §10). The pages tell the
/// person which it was; none of them opens a session.
public enum ConsentSessionError: Error, Hashable, Sendable {
    /// No session has this token: mistyped, cut short or made up.
    case unknownToken
    /// The token was exchanged already: a link works once.
    case alreadyUsed
    /// The session's lifetime is over.
    case expired
    /// The session was ended before the link was opened.
    case ended
}
