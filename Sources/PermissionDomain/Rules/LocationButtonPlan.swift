/// What a press of the app's location button leads to (SPEC §11, HIG "Location button").
public enum LocationButtonPlan: Hashable, Sendable {
    /// The authorization stands as it is, for the reason given (200, nothing written).
    case unchanged(LocationButtonStanding)
    /// The button's prompt is already pending: return it as it is (202).
    case existing(Prompt)
    /// Issue the button's prompt (202): the user has not confirmed the button yet.
    case prompt(PromptPlan)
    /// Grant Allow Once now, without a prompt (200): the record to commit.
    case grant(StoredAuthorization)
}
