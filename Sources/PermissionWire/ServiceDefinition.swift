/// A service of the catalogue (SPEC §2): its levels weakest first, the Info.plist keys each
/// level needs (location `always` needs both location keys), whether it is built in, and the
/// special behaviours it has (`allowOnce`, `provisionalAlways`, `locationServicesSwitch`,
/// `resetOnReinstall`, `userSelectedItems`).
public struct ServiceDefinition: Codable, Sendable, Equatable {
    public var id: String
    public var levels: [String]
    /// Level → the purpose keys it needs, e.g. `{"always": ["NSLocationWhenInUseUsageDescription",
    /// "NSLocationAlwaysAndWhenInUseUsageDescription"]}`.
    public var purposeKeys: [String: [String]]
    public var builtin: Bool
    public var specials: [String]

    public init(id: String, levels: [String], purposeKeys: [String: [String]], builtin: Bool, specials: [String] = []) {
        self.id = id
        self.levels = levels
        self.purposeKeys = purposeKeys
        self.builtin = builtin
        self.specials = specials
    }
}
