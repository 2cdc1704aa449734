public import Foundation

/// A question the consent UI must show (SPEC §4 Prompt).
public struct Prompt: Hashable, Sendable {
    public let id: PromptID
    public let user: UserID
    public let app: AppID
    public let service: ServiceID
    public let kind: PromptKind
    /// The level the app asked for (for an upgrade prompt: `always`).
    public let requestedLevel: Level
    /// The choices offered, in display order.
    public let options: [Choice]
    /// The purpose string shown, copied when the prompt was made (and, when answered, the
    /// text the person answering was shown).
    public var purpose: PurposeString
    /// The language of `purpose`: one of the app's localizations, nil for the base string.
    public var purposeLanguage: LanguageTag?
    /// The Info.plist key `purpose` came from.
    public let purposeKey: String
    public var state: PromptState
    public let createdAt: Date
    public let expiresAt: Date
    /// When the prompt left `pending` (answered, expired or cancelled).
    public var endedAt: Date?
    /// The answer, when `state` is `answered`.
    public var choice: Choice?
    /// A location alert's count of the app's background uses of location in the 3 days before
    /// it was issued (``LocationAlertSchedule/recentWindow``); nil for every other kind.
    public let backgroundUses: Int?

    public init(
        id: PromptID, user: UserID, app: AppID, service: ServiceID, kind: PromptKind, requestedLevel: Level,
        options: [Choice], purpose: PurposeString, purposeLanguage: LanguageTag? = nil, purposeKey: String,
        state: PromptState, createdAt: Date, expiresAt: Date, endedAt: Date? = nil, choice: Choice? = nil,
        backgroundUses: Int? = nil
    ) {
        self.id = id
        self.user = user
        self.app = app
        self.service = service
        self.kind = kind
        self.requestedLevel = requestedLevel
        self.options = options
        self.purpose = purpose
        self.purposeLanguage = purposeLanguage
        self.purposeKey = purposeKey
        self.state = state
        self.createdAt = createdAt.truncatedToMilliseconds
        self.expiresAt = expiresAt.truncatedToMilliseconds
        self.endedAt = endedAt?.truncatedToMilliseconds
        self.choice = choice
        self.backgroundUses = backgroundUses
    }

    /// The state as seen at `now`: a pending prompt past its deadline reads as expired
    /// (SPEC §5: reads show the lapsed state from the deadline on).
    public func effectiveState(at now: Date) -> PromptState {
        state == .pending && expiresAt <= now ? .expired : state
    }

    /// This prompt as seen at `now` (see `effectiveState(at:)`).
    public func effective(at now: Date) -> Prompt {
        guard state == .pending, expiresAt <= now else { return self }
        var copy = self
        copy.state = .expired
        copy.endedAt = expiresAt
        return copy
    }
}
