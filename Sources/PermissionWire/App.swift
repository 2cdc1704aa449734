public import Foundation

/// A registered app (SPEC §4 Apps): its bundle id, a display name, its purpose strings keyed
/// by the real Info.plist key names (`NSCameraUsageDescription`, ...) and their translations
/// per language tag (SPEC §11; `{}` for none).
public struct App: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var purposeStrings: [String: String]
    /// Language tag → Info.plist key → text.
    public var localizedPurposeStrings: [String: [String: String]]
    /// The language of `purposeStrings` (the app's `CFBundleDevelopmentRegion`); absent when
    /// not given.
    public var developmentLanguage: String?
    /// The version the app was last registered with; absent when never given.
    public var version: String?
    public var updatedAt: Date
    /// In the answer to a registration with `reconsent` only: how many grants went back to
    /// `notDetermined` (`purposeChanged`).
    public var reconsented: Int?

    public init(
        id: String, name: String, purposeStrings: [String: String],
        localizedPurposeStrings: [String: [String: String]] = [:], developmentLanguage: String? = nil,
        version: String? = nil, updatedAt: Date, reconsented: Int? = nil
    ) {
        self.developmentLanguage = developmentLanguage
        self.version = version
        self.id = id
        self.name = name
        self.purposeStrings = purposeStrings
        self.localizedPurposeStrings = localizedPurposeStrings
        self.updatedAt = updatedAt
        self.reconsented = reconsented
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, purposeStrings, localizedPurposeStrings, developmentLanguage, version, updatedAt, reconsented
    }

    /// Reads `localizedPurposeStrings` as `{}` when absent (a server from before it existed).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        purposeStrings = try c.decode([String: String].self, forKey: .purposeStrings)
        localizedPurposeStrings =
            try c.decodeIfPresent([String: [String: String]].self, forKey: .localizedPurposeStrings) ?? [:]
        developmentLanguage = try c.decodeIfPresent(String.self, forKey: .developmentLanguage)
        version = try c.decodeIfPresent(String.self, forKey: .version)
        updatedAt = try c.decode(Date.self, forKey: .updatedAt)
        reconsented = try c.decodeIfPresent(Int.self, forKey: .reconsented)
    }
}
