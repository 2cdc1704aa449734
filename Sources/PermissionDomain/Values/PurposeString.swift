/// Why the app needs access (an Info.plist usage description, SPEC §1):
/// 1-500 characters, no control characters, and at most ``maxBytes`` bytes of UTF-8.
public struct PurposeString: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `raw` against SPEC §1 (characters are extended grapheme clusters;
    /// control characters are the Unicode category Cc, including tab and newlines).
    /// - Throws: `PermissionError.invalidArgument(field: "purpose", ...)`.
    public init(_ raw: String) throws(PermissionError) {
        guard Self.isValid(raw) else {
            throw .invalidArgument(field: "purpose", why: Self.rule)
        }
        rawValue = raw
    }

    /// Wraps a value already validated (read back from the store); not for input.
    package init(trusted raw: String) { rawValue = raw }

    /// At most this many bytes of UTF-8 (four a character, as for most emoji): a text of 500
    /// characters each built of many code points (a family emoji, a letter under thirty accents)
    /// would be tens of kilobytes, too large for the consent page's form that records the text
    /// shown, so the prompt could not be answered there.
    public static let maxBytes = 2_000

    /// The rule, as a refusal states it.
    public static let rule = "must be 1-500 characters (at most 2,000 bytes of UTF-8) without control characters"

    public static func isValid(_ raw: String) -> Bool {
        raw.utf8.count <= maxBytes && IdentifierSyntax.isDisplayText(raw, maxCount: 500)
    }

    public var description: String { rawValue }
}
