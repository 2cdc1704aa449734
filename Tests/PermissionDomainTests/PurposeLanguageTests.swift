import PermissionDomain
import Testing

/// RFC 4647 §3.4 lookup and the `Accept-Language` preference list (RFC 9110 §12.5.4), as
/// literal tables.
@Suite struct PurposeLanguageTests {
    struct Lookup: Sendable, CustomTestStringConvertible {
        let requested: [String]
        let available: Set<String>
        let expected: String?
        let why: String
        var testDescription: String { why }
    }

    static let lookups: [Lookup] = [
        Lookup(requested: ["de"], available: ["de", "fr"], expected: "de", why: "an exact match"),
        Lookup(requested: ["DE"], available: ["de"], expected: "de", why: "case-insensitive, answered as available spells it"),
        Lookup(requested: ["pt-br"], available: ["pt-BR", "pt"], expected: "pt-BR", why: "a region, case-insensitive"),
        Lookup(requested: ["de-CH"], available: ["de", "fr"], expected: "de", why: "de-CH falls back to de"),
        Lookup(requested: ["de-CH"], available: ["de-CH", "de"], expected: "de-CH", why: "the longest match first"),
        Lookup(requested: ["zh-Hant-TW"], available: ["zh-Hant", "zh"], expected: "zh-Hant", why: "one subtag at a time"),
        Lookup(requested: ["zh-Hant-TW"], available: ["zh", "zh-Hans"], expected: "zh", why: "down to the language"),
        Lookup(
            requested: ["zh-Hant-CN-x-private1-private2"], available: ["zh-Hant-CN"], expected: "zh-Hant-CN",
            why: "a singleton left at the end goes with the subtag after it (RFC 4647 §3.4 example)"),
        Lookup(requested: ["en-a-bbb"], available: ["en"], expected: "en", why: "an extension singleton is removed too"),
        Lookup(requested: ["de"], available: ["de-CH"], expected: nil, why: "lookup never adds subtags"),
        Lookup(requested: ["d"], available: ["de"], expected: nil, why: "no prefix matching inside a subtag"),
        Lookup(requested: ["fr", "de"], available: ["de", "fr"], expected: "fr", why: "the first range with a match wins"),
        Lookup(
            requested: ["de-CH", "fr"], available: ["de", "fr"], expected: "de",
            why: "a preferred language's generic tag beats a less preferred language"),
        Lookup(
            requested: ["ja", "de-AT"], available: ["de"], expected: "de", why: "a later range when the first matches nothing"),
        Lookup(requested: ["*", "de"], available: ["de"], expected: "de", why: "the wildcard is skipped"),
        Lookup(requested: ["*"], available: ["de"], expected: nil, why: "the wildcard alone matches nothing"),
        Lookup(requested: ["de-*"], available: ["de"], expected: nil, why: "a range with a wildcard subtag is skipped"),
        Lookup(requested: ["de--CH", ""], available: ["de"], expected: nil, why: "malformed ranges are skipped"),
        Lookup(requested: ["ja"], available: ["de", "fr"], expected: nil, why: "no match: the base string"),
        Lookup(requested: [], available: ["de"], expected: nil, why: "no languages: the base string"),
        Lookup(requested: ["de"], available: [], expected: nil, why: "no translations: the base string"),
        Lookup(
            requested: ["de"], available: ["de", "DE"], expected: "DE", why: "two spellings: the smaller, whatever the hashing"),
    ]

    @Test(arguments: lookups) func lookup(_ row: Lookup) {
        #expect(PurposeLanguage.bestMatch(requested: row.requested, available: row.available) == row.expected)
    }

    @Test(arguments: [
        ("de-CH, de;q=0.9, en;q=0.5", ["de-CH", "de", "en"]),
        ("en;q=0.5, fr, de;q=0.9", ["fr", "de", "en"]),
        ("a;q=0.5, b;q=0.5, c", ["c", "a", "b"]),
        ("de;q=0, en", ["en"]),
        ("de;q=0.000, en;q=0.001", ["en"]),
        ("de;q=1, en;q=1.000, fr;q=1.", ["de", "en", "fr"]),
        ("de;q=2, en;q=1.5, fr;q=0.1234, it;q=abc, nl;q=, es", ["es"]),
        (" de ; Q=0.8 ,\ten", ["en", "de"]),
        ("de-CH;level=1;q=0.3, fr", ["fr", "de-CH"]),
        ("*, de;q=0.5", ["*", "de"]),
        ("", []),
        (" , ,de", ["de"]),
        ("de_CH, d\u{e9}, en", ["en"]),
    ]) func acceptLanguagePreferences(_ field: String, _ expected: [String]) {
        #expect(PurposeLanguage.preferences(acceptLanguage: field) == expected)
    }

    @Test func preferencesFeedTheLookup() {
        let languages = PurposeLanguage.preferences(acceptLanguage: "fr-CH;q=0.4, de-AT, en;q=0.8")
        #expect(PurposeLanguage.bestMatch(requested: languages, available: ["fr", "en"]) == "en")
        #expect(PurposeLanguage.bestMatch(requested: languages, available: ["fr", "de", "en"]) == "de")
    }

    @Test(arguments: [
        ("de", "de"), ("DE", "de"), ("de-ch", "de-CH"), ("DE-ch", "de-CH"), ("pt-BR", "pt-BR"), ("gsw", "gsw"),
        ("zh-hant", "zh-Hant"), ("ZH-hANT-tw", "zh-Hant-TW"), ("es-419", "es-419"), ("sr-Latn", "sr-Latn"),
    ]) func wellFormedTagsAreKeptInCanonicalCase(_ raw: String, _ canonical: String) throws {
        #expect(try LanguageTag(raw).rawValue == canonical)
        #expect(LanguageTag.canonical(raw) == canonical)
    }

    @Test(arguments: [
        "", "d", "deut", "de_CH", "de-", "-de", "de--CH", "de-CHE", "de-12", "de-1234", "de-Latn-CH-extra",
        "en-US-u-ca-gregory", "i-klingon", "x-private", "1de", "de CH", "d\u{e9}", "de-Latn-Latn", "de-CH-Latn",
        "de-CH-x", String(repeating: "a", count: 40),
    ]) func otherTagsAreRefusedNamingTheField(_ raw: String) {
        #expect(throws: PermissionError.self) { try LanguageTag(raw, field: "locale") }
        do {
            _ = try LanguageTag(raw, field: "locale")
        } catch {
            guard case .invalidArgument(let field, _) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(field == "locale")
        }
    }
}
