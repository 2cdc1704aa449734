/// What a decision answers: the answered prompt and the authorization it produced.
public struct DecisionOutcome: Hashable, Sendable {
    public let prompt: Prompt
    public let authorization: Authorization

    public init(prompt: Prompt, authorization: Authorization) {
        self.prompt = prompt
        self.authorization = authorization
    }
}
