public import Foundation

/// A consent prompt (SPEC §4 Prompt): what the consent UI shows, the choices it offers and,
/// once answered, the choice made. `answeredAt` and `choice` are absent until answered.
public struct Prompt: Codable, Sendable, Equatable {
    public var id: String
    public var user: String
    public var app: String
    public var service: String
    public var kind: Kind
    /// The level requested (for an upgrade prompt, `always`).
    public var level: String
    /// The choices offered, e.g. `["allowOnce", "allowWhileUsing", "deny"]`.
    public var options: [String]
    /// The purpose string shown, as registered when the prompt was issued: the base string or
    /// its translation for the user's `locale` (when answered: the text the person was shown).
    public var purpose: String
    /// The language tag of `purpose`'s translation; absent for the base string.
    public var purposeLanguage: String?
    /// The Info.plist key `purpose` came from.
    public var purposeKey: String
    public var state: State
    public var createdAt: Date
    public var expiresAt: Date
    public var answeredAt: Date?
    public var choice: String?
    /// A location alert's count of the app's background uses of location in the 3 days before
    /// it was issued; absent for every other kind.
    public var backgroundUses: Int?

    public init(
        id: String, user: String, app: String, service: String, kind: Kind, level: String,
        options: [String], purpose: String, purposeLanguage: String? = nil, purposeKey: String,
        state: State, createdAt: Date, expiresAt: Date, answeredAt: Date? = nil, choice: String? = nil,
        backgroundUses: Int? = nil
    ) {
        self.id = id
        self.user = user
        self.app = app
        self.service = service
        self.kind = kind
        self.level = level
        self.options = options
        self.purpose = purpose
        self.purposeLanguage = purposeLanguage
        self.purposeKey = purposeKey
        self.state = state
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.answeredAt = answeredAt
        self.choice = choice
        self.backgroundUses = backgroundUses
    }

    /// `request`: an app asked; `upgrade`: the system's location upgrade prompt;
    /// `locationButton`: the first press of the app's location button, explaining it;
    /// `locationAlert`: the system's reminder of an Always grant's background use.
    public enum Kind: String, WireEnum {
        case request, upgrade, locationButton, locationAlert
    }

    /// Where the prompt is in its life.
    public enum State: String, WireEnum {
        case pending, answered, expired, cancelled
    }
}
