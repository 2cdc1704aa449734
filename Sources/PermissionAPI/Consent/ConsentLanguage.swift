import HTTPCore
import PermissionDomain

/// The languages the consent pages are written in (SPEC §10): the page language is the best
/// match of the request's `Accept-Language` (RFC 9110 §12.5.4, RFC 4647 lookup) among these,
/// English when none matches.
enum ConsentLanguage: String, Sendable, CaseIterable {
    case en
    case de

    /// The page language of a request with `headers`.
    static func of(_ headers: HTTPHeaders) -> ConsentLanguage {
        let match = PurposeLanguage.bestMatch(
            requested: preferences(headers), available: Set(allCases.map(\.rawValue)))
        return match.flatMap(ConsentLanguage.init(rawValue:)) ?? .en
    }

    /// The request's language ranges, most preferred first (empty without the field): what a
    /// purpose string is chosen by (``PermissionService/purposeText(for:languages:)``).
    static func preferences(_ headers: HTTPHeaders) -> [String] {
        guard let field = headers["Accept-Language"] else { return [] }
        return PurposeLanguage.preferences(acceptLanguage: field)
    }
}
