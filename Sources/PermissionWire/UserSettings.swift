/// A user's device-wide settings (`GET`/`PUT /v1/users/{user}/settings`): the global Location
/// Services switch (SPEC §4) and the user's language (SPEC §11), a language tag such as `de-CH`
/// or `null`. A `PUT` replaces both: a missing `locale` is `null`.
public struct UserSettings: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["locationServicesEnabled", "locale"]

    public var locationServicesEnabled: Bool
    /// Which translation of the apps' purpose strings the user's prompts show; nil for the
    /// base strings.
    public var locale: String?

    public init(locationServicesEnabled: Bool, locale: String? = nil) {
        self.locationServicesEnabled = locationServicesEnabled
        self.locale = locale
    }

    private enum CodingKeys: String, CodingKey {
        case locationServicesEnabled, locale
    }

    /// Encodes `locale` always, as `null` when not set, so a `GET` body can be `PUT` back.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(locationServicesEnabled, forKey: .locationServicesEnabled)
        if let locale { try c.encode(locale, forKey: .locale) } else { try c.encodeNil(forKey: .locale) }
    }
}
