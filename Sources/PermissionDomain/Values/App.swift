public import Foundation

/// A registered app and its purpose strings, keyed by the real Info.plist key names (SPEC §4 Apps).
public struct App: Hashable, Sendable {
    public let id: AppID
    /// A display name: 1-200 characters, no control characters.
    public let name: String
    public let purposeStrings: [String: PurposeString]

    /// The purpose strings a text shown in `language` is one of: its translations, or the base
    /// strings for none (the base language); nil when the app has no translation into it.
    public func purposeStrings(shownIn language: LanguageTag?) -> [String: PurposeString]? {
        guard let language else { return purposeStrings }
        return localizedPurposeStrings[language]
    }
    /// Translations of the purpose strings, per language, keyed like `purposeStrings` (an
    /// app's `InfoPlist.strings`, SPEC §11): each key is one `purposeStrings` also has.
    public let localizedPurposeStrings: [LanguageTag: [String: PurposeString]]
    /// The language of `purposeStrings`, the base strings (an app's `CFBundleDevelopmentRegion`);
    /// nil when not given. A page shows a base string in this language (`lang`), so that a
    /// screen reader reads it as such under a page in another language (WCAG 3.1.2).
    public let developmentLanguage: LanguageTag?
    /// The version the app was last registered with (`CFBundleShortVersionString` or any
    /// build label), nil when never given. A change starts the location alerts' intervals
    /// over (SPEC §11, seed 004: "When the app is updated, the frequency … is reset").
    public let version: String?
    public let updatedAt: Date

    /// The most languages an app may localize its purpose strings into.
    public static let maxLanguages = 32

    /// The longest `version`, in characters.
    public static let maxVersionLength = 64

    /// Validates the name and the keys (``isValidPurposeKey(_:)``, at most 64 keys), and the
    /// localizations: at most ``maxLanguages`` languages, each with at least one string, every
    /// key a valid one of `purposeStrings`.
    /// - Throws: `PermissionError.invalidArgument` (a key of either member that is not an
    ///   Info.plist key among them); `.invalidCombination` naming the member
    ///   (`localizedPurposeStrings/de/NSCameraUsageDescription`) for a translation of a key
    ///   `purposeStrings` lacks.
    public init(
        id: AppID, name: String, purposeStrings: [String: PurposeString],
        localizedPurposeStrings: [LanguageTag: [String: PurposeString]] = [:], developmentLanguage: LanguageTag? = nil,
        version: String? = nil, updatedAt: Date
    ) throws(PermissionError) {
        guard IdentifierSyntax.isDisplayText(name, maxCount: 200) else {
            throw .invalidArgument(field: "name", why: "must be 1-200 characters without control characters")
        }
        if let version, !IdentifierSyntax.isDisplayText(version, maxCount: Self.maxVersionLength) {
            throw .invalidArgument(
                field: "version", why: "must be 1-\(Self.maxVersionLength) characters without control characters")
        }
        guard purposeStrings.count <= 64 else {
            throw .invalidArgument(field: "purposeStrings", why: "at most 64 keys")
        }
        for key in purposeStrings.keys.sorted() where !Self.isValidPurposeKey(key) {
            throw .invalidArgument(field: "purposeStrings", why: Self.invalidPurposeKey(key))
        }
        guard localizedPurposeStrings.count <= Self.maxLanguages else {
            throw .invalidArgument(field: "localizedPurposeStrings", why: "at most \(Self.maxLanguages) languages")
        }
        for (language, strings) in localizedPurposeStrings.sorted(by: { $0.key < $1.key }) {
            guard !strings.isEmpty else {
                throw .invalidArgument(
                    field: "localizedPurposeStrings/\(language)", why: "must have at least one purpose string")
            }
            for key in strings.keys.sorted() where !Self.isValidPurposeKey(key) {
                throw .invalidArgument(field: "localizedPurposeStrings/\(language)", why: Self.invalidPurposeKey(key))
            }
            for key in strings.keys.sorted() where purposeStrings[key] == nil {
                throw .invalidCombination(
                    field: "localizedPurposeStrings/\(language)/\(key)",
                    why: "\(key) is not one of the app's purposeStrings")
            }
        }
        self.init(
            trusted: id, name: name, purposeStrings: purposeStrings, localizedPurposeStrings: localizedPurposeStrings,
            developmentLanguage: developmentLanguage, version: version, updatedAt: updatedAt)
    }

    /// Builds an app already validated (read back from the store).
    package init(
        trusted id: AppID, name: String, purposeStrings: [String: PurposeString],
        localizedPurposeStrings: [LanguageTag: [String: PurposeString]] = [:], developmentLanguage: LanguageTag? = nil,
        version: String? = nil, updatedAt: Date
    ) {
        self.id = id
        self.developmentLanguage = developmentLanguage
        self.version = version
        self.name = name
        self.purposeStrings = purposeStrings
        self.localizedPurposeStrings = localizedPurposeStrings
        self.updatedAt = updatedAt.truncatedToMilliseconds
    }

    /// The text of purpose key `key` for `languages` (most preferred first): the best match
    /// among the languages that translate `key` (``PurposeLanguage/bestMatch(requested:available:)``),
    /// else nil (the caller shows the base string).
    public func localizedPurpose(key: String, languages: [String]) -> (text: PurposeString, language: LanguageTag)? {
        guard !languages.isEmpty, !localizedPurposeStrings.isEmpty else { return nil }
        var available: [String: LanguageTag] = [:]
        for (language, strings) in localizedPurposeStrings where strings[key] != nil {
            available[language.rawValue] = language
        }
        guard let match = PurposeLanguage.bestMatch(requested: languages, available: Set(available.keys)),
            let language = available[match], let text = localizedPurposeStrings[language]?[key]
        else { return nil }
        return (text, language)
    }

    /// An Info.plist key as openapi.yaml's `PurposeKey` has it (`^[A-Za-z][A-Za-z0-9]{0,127}$`):
    /// an ASCII letter, then at most 127 ASCII letters and digits. Stored keys are not checked
    /// again when read: rows written while `_`, `.` and `-` (and any first character) were
    /// accepted still load.
    public static func isValidPurposeKey(_ key: String) -> Bool {
        var count = 0
        for byte in key.utf8 {
            count += 1
            guard count <= 128, IdentifierSyntax.isAlphanumeric(byte) else { return false }
            if count == 1, byte <= 0x39 { return false }  // a digit first
        }
        return count > 0
    }

    /// Why `key` is refused, for ``PermissionError/invalidArgument(field:why:)``.
    static func invalidPurposeKey(_ key: String) -> String {
        "\(key) is not a valid Info.plist key (a letter, then up to 127 letters and digits)"
    }
}
