/// The body of `POST /v1/prompts/{id}/decision`. `choice` is a plain string so that a choice
/// the prompt does not offer reaches the service and gets `422 invalid-choice` with `allowed`.
public struct Decision: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["choice"]

    public var choice: String

    public init(choice: String) {
        self.choice = choice
    }
}
