/// The body of `PUT /v1/services/{service}`: a custom service's levels (weakest first) and the
/// purpose keys per level. Custom services have no special behaviours; the id `all` is refused.
public struct ServiceRegistration: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["levels", "purposeKeys"]

    public var levels: [String]
    public var purposeKeys: [String: [String]]

    public init(levels: [String], purposeKeys: [String: [String]]) {
        self.levels = levels
        self.purposeKeys = purposeKeys
    }
}
