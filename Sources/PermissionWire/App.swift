public import Foundation

/// A registered app (SPEC §4 Apps): its bundle id, a display name and its purpose strings keyed
/// by the real Info.plist key names (`NSCameraUsageDescription`, ...).
public struct App: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var purposeStrings: [String: String]
    public var updatedAt: Date

    public init(id: String, name: String, purposeStrings: [String: String], updatedAt: Date) {
        self.id = id
        self.name = name
        self.purposeStrings = purposeStrings
        self.updatedAt = updatedAt
    }
}
