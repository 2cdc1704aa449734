/// A prompt the rules decided to issue, before it gets an id and times.
public struct PromptPlan: Hashable, Sendable {
    public let kind: PromptKind
    public let requestedLevel: Level
    public let options: [Choice]
    public let purposeKey: String
    public let purpose: PurposeString

    public init(kind: PromptKind, requestedLevel: Level, options: [Choice], purposeKey: String, purpose: PurposeString) {
        self.kind = kind
        self.requestedLevel = requestedLevel
        self.options = options
        self.purposeKey = purposeKey
        self.purpose = purpose
    }
}
