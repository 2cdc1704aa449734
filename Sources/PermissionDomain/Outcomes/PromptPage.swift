/// A page of prompts (effective states). A page may hold fewer than `limit` items while
/// `nextAfter` is set: continue from `nextAfter` until it is nil.
public struct PromptPage: Hashable, Sendable {
    public let items: [Prompt]
    /// The cursor of the next page; nil at the end.
    public let nextAfter: PromptID?

    public init(items: [Prompt], nextAfter: PromptID?) {
        self.items = items
        self.nextAfter = nextAfter
    }
}
