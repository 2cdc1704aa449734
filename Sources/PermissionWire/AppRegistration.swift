/// The body of `PUT /v1/apps/{app}`: the app's name, its complete set of purpose strings and,
/// optionally, their translations per language tag (like `InfoPlist.strings`; the id is in the
/// path; `updatedAt` is set by the server), whether to ask again for the grants given under
/// purpose strings that changed (`reconsent`, SPEC §11), and optionally the app's `version`
/// (a new one starts the location alerts' intervals over; absent: the registered one stays).
public struct AppRegistration: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = [
        "name", "purposeStrings", "localizedPurposeStrings", "developmentLanguage", "reconsent", "version",
    ]
    /// Left out for none; its schema is an object.
    public static let notNullable: Set<String> = ["localizedPurposeStrings", "developmentLanguage", "reconsent", "version"]

    public var name: String
    public var purposeStrings: [String: String]
    /// Language tag → Info.plist key → text; nil (absent) for none.
    public var localizedPurposeStrings: [String: [String: String]]?
    /// The language of `purposeStrings` (a BCP 47 tag, as `CFBundleDevelopmentRegion`); absent:
    /// none. Replaced with the purpose strings, like them.
    public var developmentLanguage: String?
    /// `true`: every grant of the app given under a purpose string this registration changes
    /// goes back to `notDetermined` (`purposeChanged`); absent or `false`: they only show
    /// `purposeChanged`.
    public var reconsent: Bool?
    /// The app's version (1-64 characters without control characters); absent: unchanged.
    public var version: String?

    public init(
        name: String, purposeStrings: [String: String], localizedPurposeStrings: [String: [String: String]]? = nil,
        developmentLanguage: String? = nil, reconsent: Bool? = nil, version: String? = nil
    ) {
        self.developmentLanguage = developmentLanguage
        self.version = version
        self.name = name
        self.purposeStrings = purposeStrings
        self.localizedPurposeStrings = localizedPurposeStrings
        self.reconsent = reconsent
    }
}
