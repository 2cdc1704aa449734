/// A page of prompts (`GET /v1/users/{user}/prompts`); `nextCursor` is absent on the last page.
public struct PromptList: Codable, Sendable, Equatable {
    public var items: [Prompt]
    public var nextCursor: String?

    public init(items: [Prompt], nextCursor: String? = nil) {
        self.items = items
        self.nextCursor = nextCursor
    }
}
