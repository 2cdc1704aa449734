/// The body of `PUT /v1/apps/{app}`: the app's name, its complete set of purpose strings and,
/// optionally, their translations per language tag (like `InfoPlist.strings`; the id is in the
/// path; `updatedAt` is set by the server).
public struct AppRegistration: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["name", "purposeStrings", "localizedPurposeStrings"]
    /// Left out for none; its schema is an object.
    public static let notNullable: Set<String> = ["localizedPurposeStrings"]

    public var name: String
    public var purposeStrings: [String: String]
    /// Language tag → Info.plist key → text; nil (absent) for none.
    public var localizedPurposeStrings: [String: [String: String]]?

    public init(name: String, purposeStrings: [String: String], localizedPurposeStrings: [String: [String: String]]? = nil) {
        self.name = name
        self.purposeStrings = purposeStrings
        self.localizedPurposeStrings = localizedPurposeStrings
    }
}
