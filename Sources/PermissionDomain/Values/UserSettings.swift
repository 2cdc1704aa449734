public import Foundation

/// A user's global settings: the Location Services switch (SPEC §4) and their language (SPEC §11).
public struct UserSettings: Hashable, Sendable {
    public let user: UserID
    /// The global Location Services switch; on unless the user turned it off.
    public var locationServicesEnabled: Bool
    /// The user's language (SPEC §11): which localization of purpose strings the prompts made
    /// for them show; nil for the base strings.
    public var locale: LanguageTag?
    /// When the settings last changed; nil for a user who never changed them.
    public var updatedAt: Date?

    public init(user: UserID, locationServicesEnabled: Bool = true, locale: LanguageTag? = nil, updatedAt: Date? = nil) {
        self.user = user
        self.locationServicesEnabled = locationServicesEnabled
        self.locale = locale
        self.updatedAt = updatedAt?.truncatedToMilliseconds
    }
}
