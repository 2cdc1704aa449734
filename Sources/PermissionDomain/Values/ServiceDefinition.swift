/// A protected service of the catalogue (SPEC §2): its levels, weakest first, and the
/// Info.plist purpose keys each level needs (ITMS-90683; seed 003).
public struct ServiceDefinition: Hashable, Sendable {
    public let id: ServiceID
    /// Levels, weakest first; never empty, no duplicates.
    public let levels: [Level]
    /// The purpose keys each level needs, in `levels` order. A level may need more than one
    /// key (location `always` needs the whenInUse key too, as on iOS); the last key is the
    /// level's own one. Levels may share a key (photos `limited` and `full`).
    public let purposeKeys: [[String]]
    /// Whether the service is built in (SPEC §2 table) rather than an operator's custom one.
    public let builtin: Bool
    public let specials: Set<ServiceSpecial>
    /// `specials.contains(.locationServicesSwitch)`, read on every status check without hashing.
    public let hasLocationServicesSwitch: Bool

    /// Validates a definition: at least one level, no duplicates, one non-empty key list per
    /// level, each key an Info.plist key (``App/isValidPurposeKey(_:)``).
    /// - Throws: `PermissionError.invalidArgument`.
    public init(
        id: ServiceID, levels: [Level], purposeKeys: [[String]], builtin: Bool = false,
        specials: Set<ServiceSpecial> = []
    ) throws(PermissionError) {
        guard !levels.isEmpty, levels.count <= 16 else {
            throw .invalidArgument(field: "levels", why: "must list 1 to 16 levels")
        }
        guard Set(levels).count == levels.count else {
            throw .invalidArgument(field: "levels", why: "must not repeat a level")
        }
        guard purposeKeys.count == levels.count else {
            throw .invalidArgument(field: "purposeKeys", why: "must give the keys of every level")
        }
        for keys in purposeKeys {
            guard !keys.isEmpty, keys.count <= 8 else {
                throw .invalidArgument(field: "purposeKeys", why: "every level needs 1 to 8 purpose keys")
            }
            for key in keys where !App.isValidPurposeKey(key) {
                throw .invalidArgument(field: "purposeKeys", why: App.invalidPurposeKey(key))
            }
        }
        self.init(trusted: id, levels: levels, purposeKeys: purposeKeys, builtin: builtin, specials: specials)
    }

    /// Builds a definition already validated (built in, or read back from the store).
    package init(
        trusted id: ServiceID, levels: [Level], purposeKeys: [[String]], builtin: Bool,
        specials: Set<ServiceSpecial>
    ) {
        self.id = id
        self.levels = levels
        self.purposeKeys = purposeKeys
        self.builtin = builtin
        self.specials = specials
        hasLocationServicesSwitch = specials.contains(.locationServicesSwitch)
    }

    /// The position of `level` among `levels` (0 = weakest), or nil when the service lacks it.
    public func rank(of level: Level) -> Int? { levels.firstIndex(of: level) }

    /// Whether the service has `level`.
    public func has(_ level: Level) -> Bool { levels.contains(level) }

    /// The purpose keys `level` needs; empty when the service lacks the level.
    public func purposeKeys(for level: Level) -> [String] {
        guard let index = rank(of: level) else { return [] }
        return purposeKeys[index]
    }

    /// The strongest level.
    public var strongestLevel: Level { levels[levels.count - 1] }

    /// Checks that the service has `level`.
    /// - Throws: `PermissionError.unknownLevel`.
    public func requireLevel(_ level: Level) throws(PermissionError) {
        guard has(level) else { throw .unknownLevel(level: level.rawValue, service: id, allowed: levels) }
    }
}
