/// What a request leads to (SPEC §4 Request).
public enum RequestPlan: Hashable, Sendable {
    /// The authorization stands as it is: no prompt (200).
    case noPrompt
    /// A prompt for this authorization is already pending: return it as it is (202).
    case existing(Prompt)
    /// Issue a new prompt (202).
    case prompt(PromptPlan)
}
