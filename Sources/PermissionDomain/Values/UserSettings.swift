public import Foundation

/// A user's global settings (SPEC §4 Location Services switch).
public struct UserSettings: Hashable, Sendable {
    public let user: UserID
    /// The global Location Services switch; on unless the user turned it off.
    public var locationServicesEnabled: Bool
    /// When the settings last changed; nil for a user who never changed them.
    public var updatedAt: Date?

    public init(user: UserID, locationServicesEnabled: Bool = true, updatedAt: Date? = nil) {
        self.user = user
        self.locationServicesEnabled = locationServicesEnabled
        self.updatedAt = updatedAt?.truncatedToMilliseconds
    }
}
