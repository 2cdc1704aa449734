/// The body of `PUT /v1/apps/{app}`: the app's name and its complete set of purpose strings
/// (the id is in the path; `updatedAt` is set by the server).
public struct AppRegistration: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["name", "purposeStrings"]

    public var name: String
    public var purposeStrings: [String: String]

    public init(name: String, purposeStrings: [String: String]) {
        self.name = name
        self.purposeStrings = purposeStrings
    }
}
