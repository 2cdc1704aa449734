/// A language tag of the BCP 47 subset the service accepts (RFC 5646 §2.1): a 2-3 letter
/// language, an optional 4-letter script and an optional region of 2 letters or 3 digits, in
/// that order, separated by hyphens: `de`, `de-CH`, `pt-BR`, `zh-Hant`, `zh-Hant-TW`, `es-419`.
/// Extensions, variants, private use and grandfathered tags are refused.
///
/// Kept in the canonical case of RFC 5646 §2.1.1 (language lower case, script title case,
/// region upper case), so `DE-ch` and `de-CH` are one tag; tags compare case-insensitively
/// anyway (RFC 5646 §2.1.1, RFC 4647 §2).
public struct LanguageTag: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The tag in canonical case.
    public let rawValue: String

    /// Validates `raw` and puts it in canonical case.
    /// - Parameters:
    ///   - raw: the tag as written.
    ///   - field: the field named by the error.
    /// - Throws: `PermissionError.invalidArgument(field:)`.
    public init(_ raw: String, field: String = "locale") throws(PermissionError) {
        guard let canonical = Self.canonical(raw) else {
            throw .invalidArgument(
                field: field,
                why:
                    "must be a language tag such as de, de-CH, pt-BR or zh-Hant: a 2-3 letter language, then optionally a 4-letter script and a 2-letter or 3-digit region"
            )
        }
        rawValue = canonical
    }

    /// Wraps a tag already validated (read back from the store); not for input.
    package init(trusted raw: String) { rawValue = raw }

    /// `raw` in canonical case, or nil when it is not a tag of the accepted subset.
    public static func canonical(_ raw: String) -> String? {
        guard raw.utf8.count <= 16 else { return nil }  // "abc-Abcd-123" is the longest: 12
        let parts = raw.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.utf8.count), first.utf8.allSatisfy(isLetter) else {
            return nil
        }
        var result = first.lowercased()
        var index = 1
        if index < parts.count, parts[index].utf8.count == 4, parts[index].utf8.allSatisfy(isLetter) {
            let script = parts[index]
            result += "-" + script.prefix(1).uppercased() + script.dropFirst().lowercased()
            index += 1
        }
        if index < parts.count {
            let region = parts[index]
            if region.utf8.count == 2, region.utf8.allSatisfy(isLetter) {
                result += "-" + region.uppercased()
            } else if region.utf8.count == 3, region.utf8.allSatisfy(isDigit) {
                result += "-" + region
            } else {
                return nil
            }
            index += 1
        }
        return index == parts.count ? result : nil
    }

    public static func < (lhs: LanguageTag, rhs: LanguageTag) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
