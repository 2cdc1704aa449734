/// The body of `PUT /v1/apps/{app}`: the app's name, its complete set of purpose strings and,
/// optionally, their translations per language tag (like `InfoPlist.strings`; the id is in the
/// path; `updatedAt` is set by the server), and whether to ask again for the grants given under
/// purpose strings that changed (`reconsent`, SPEC §11).
public struct AppRegistration: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["name", "purposeStrings", "localizedPurposeStrings", "reconsent"]
    /// Left out for none; its schema is an object.
    public static let notNullable: Set<String> = ["localizedPurposeStrings", "reconsent"]

    public var name: String
    public var purposeStrings: [String: String]
    /// Language tag → Info.plist key → text; nil (absent) for none.
    public var localizedPurposeStrings: [String: [String: String]]?
    /// `true`: every grant of the app given under a purpose string this registration changes
    /// goes back to `notDetermined` (`purposeChanged`); absent or `false`: they only show
    /// `purposeChanged`.
    public var reconsent: Bool?

    public init(
        name: String, purposeStrings: [String: String], localizedPurposeStrings: [String: [String: String]]? = nil,
        reconsent: Bool? = nil
    ) {
        self.name = name
        self.purposeStrings = purposeStrings
        self.localizedPurposeStrings = localizedPurposeStrings
        self.reconsent = reconsent
    }
}
