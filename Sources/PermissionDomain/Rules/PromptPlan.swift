/// A prompt the rules decided to issue, before it gets an id and times.
public struct PromptPlan: Hashable, Sendable {
    public let kind: PromptKind
    public let requestedLevel: Level
    public let options: [Choice]
    public let purposeKey: String
    /// The base string of `purposeKey`, or its localization in `purposeLanguage`.
    public var purpose: PurposeString
    /// The localization `purpose` comes from; nil for the base string.
    public var purposeLanguage: LanguageTag?
    /// A location alert's count of background uses in the last 3 days; nil for other kinds.
    public let backgroundUses: Int?

    public init(
        kind: PromptKind, requestedLevel: Level, options: [Choice], purposeKey: String, purpose: PurposeString,
        purposeLanguage: LanguageTag? = nil, backgroundUses: Int? = nil
    ) {
        self.kind = kind
        self.requestedLevel = requestedLevel
        self.options = options
        self.purposeKey = purposeKey
        self.purpose = purpose
        self.purposeLanguage = purposeLanguage
        self.backgroundUses = backgroundUses
    }
}
