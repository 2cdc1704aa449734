public import Foundation

/// A consent session as `GET /v1/consent-sessions/{id}` answers it (SPEC §10): whose it is, when
/// its link was opened and when it ends or ended; never its token or cookie.
public struct ConsentSession: Codable, Sendable, Equatable {
    public var id: String
    public var user: String
    public var state: State
    public var createdAt: Date
    /// The end of its life, set at creation (`--consent-session-ttl`).
    public var expiresAt: Date
    /// When the link was opened (its token exchanged for the cookie); absent until then.
    public var openedAt: Date?
    /// When it was ended (an operator's `DELETE`, or the user's sign-out); absent until then.
    public var endedAt: Date?

    public init(
        id: String, user: String, state: State, createdAt: Date, expiresAt: Date, openedAt: Date? = nil,
        endedAt: Date? = nil
    ) {
        self.id = id
        self.user = user
        self.state = state
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.openedAt = openedAt
        self.endedAt = endedAt
    }

    /// `unopened`: the link waits for its first visit; `open`: the cookie acts for the user;
    /// `ended`: ended before its time; `expired`: its time ran out (opened or not).
    public enum State: String, WireEnum {
        case unopened, open, ended, expired
    }
}
