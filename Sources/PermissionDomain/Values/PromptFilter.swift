/// A filter over stored prompts: every given field must match. Listings are ordered by
/// prompt id (creation order) and paged by keyset (`after` a `PromptID`).
/// `state` is the STORED state: a pending prompt past its deadline is still `pending` until
/// the sweep expires it; the service shows it as expired from the deadline on.
public struct PromptFilter: Hashable, Sendable {
    public var user: UserID?
    public var app: AppID?
    public var service: ServiceID?
    public var state: PromptState?

    public init(user: UserID? = nil, app: AppID? = nil, service: ServiceID? = nil, state: PromptState? = nil) {
        self.user = user
        self.app = app
        self.service = service
        self.state = state
    }

    /// Whether `prompt` passes the filter.
    public func matches(_ prompt: Prompt) -> Bool {
        (user == nil || user == prompt.user) && (app == nil || app == prompt.app)
            && (service == nil || service == prompt.service) && (state == nil || state == prompt.state)
    }
}
