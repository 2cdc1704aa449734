/// Why the app needs access (an Info.plist usage description, SPEC §1):
/// 1-500 characters, no control characters.
public struct PurposeString: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `raw` against SPEC §1 (characters are extended grapheme clusters;
    /// control characters are the Unicode category Cc, including tab and newlines).
    /// - Throws: `PermissionError.invalidArgument(field: "purpose", ...)`.
    public init(_ raw: String) throws(PermissionError) {
        guard Self.isValid(raw) else {
            throw .invalidArgument(field: "purpose", why: "must be 1-500 characters without control characters")
        }
        rawValue = raw
    }

    /// Wraps a value already validated (read back from the store); not for input.
    package init(trusted raw: String) { rawValue = raw }

    public static func isValid(_ raw: String) -> Bool { IdentifierSyntax.isDisplayText(raw, maxCount: 500) }

    public var description: String { rawValue }
}
