/// The answer of `POST /v1/prompts/{id}/decision` (200): the prompt, now `answered` with the
/// choice, and the authorization the choice produced.
public struct DecisionResult: Codable, Sendable, Equatable {
    public var prompt: Prompt
    public var authorization: Authorization

    public init(prompt: Prompt, authorization: Authorization) {
        self.prompt = prompt
        self.authorization = authorization
    }
}
