import ByteText
import Foundation
import Testing

/// The one JSON string escaper, style by style, against tables and against the escapers it
/// replaced (kept here, scalar by scalar, as the reference the bytes must still match: the
/// audit detail's bytes are hashed into the audit chain, and problem and wire bodies are
/// served as they are).
@Suite struct JSONEscapingTests {
    static func escaped(_ text: String, _ style: JSONStringStyle) -> String {
        String(decoding: ByteCursor.bytes { $0.jsonString(text, style: style) }, as: UTF8.self)
    }

    /// The rows: input, then the expected output in `encoder`, `scriptSafe` and `minimal`.
    static let table: [(String, String, String, String)] = [
        ("", #""""#, #""""#, #""""#),
        ("plain", #""plain""#, #""plain""#, #""plain""#),
        ("q\"b\\", #""q\"b\\""#, #""q\"b\\""#, #""q\"b\\""#),
        ("\n\r\t", #""\n\r\t""#, #""\n\r\t""#, #""\n\r\t""#),
        ("\u{8}\u{C}", #""\b\f""#, #""\b\f""#, #""\u0008\u000c""#),
        (
            "\u{0}\u{1}\u{1B}\u{1F}", #""\u0000\u0001\u001b\u001f""#, #""\u0000\u0001\u001b\u001f""#,
            #""\u0000\u0001\u001b\u001f""#
        ),
        ("DEL \u{7F} / <", "\"DEL \u{7F} / <\"", "\"DEL \u{7F} / <\"", "\"DEL \u{7F} / <\""),
        ("a\u{2028}b\u{2029}", "\"a\u{2028}b\u{2029}\"", #""a\u2028b\u2029""#, "\"a\u{2028}b\u{2029}\""),
        ("€ é 中 😀", "\"€ é 中 😀\"", "\"€ é 中 😀\"", "\"€ é 中 😀\""),
        // Invalid UTF-8 never reaches the escaper: a String repairs it to U+FFFD when made.
        (
            String(decoding: [0x61, 0xFF, 0xE2, 0x80], as: UTF8.self), "\"a\u{FFFD}\u{FFFD}\"", "\"a\u{FFFD}\u{FFFD}\"",
            "\"a\u{FFFD}\u{FFFD}\""
        ),
    ]

    @Test func tableOfEscapes() {
        for (input, encoder, scriptSafe, minimal) in Self.table {
            #expect(Self.escaped(input, .encoder) == encoder, "\(input.debugDescription)")
            #expect(Self.escaped(input, .scriptSafe) == scriptSafe, "\(input.debugDescription)")
            #expect(Self.escaped(input, .minimal) == minimal, "\(input.debugDescription)")
        }
    }

    static let tricky: [String] = [
        "", "plain", "quote \" and backslash \\", "slash / stays", "\u{0}\u{1}\u{7}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1B}\u{1F}",
        "DEL \u{7F}", "line sep \u{2028} para sep \u{2029}", "\u{2028}\u{2029}\u{2027}\u{202A}", "é ü ß 中文 日本語",
        "emoji 😀👩‍👩‍👧 flags 🇫🇷", "noncharacter \u{FFFF} \u{FFFE} bmp end", "astral \u{10FFFF}",
        "</script><script>alert(1)</script>", "\\u0041 is not unescaped", "tab\tinside", "cr\rlf\n",
        String(repeating: "x\"", count: 300), String(repeating: "€\u{2028}", count: 40), "combining e\u{301} vs \u{E9}",
    ]

    /// Every scalar below U+0080, and U+2028/U+2029 beside others, one at each offset around
    /// the eight-byte words the scanner skips by: every style matches its reference.
    static var samples: [String] {
        var samples = tricky
        for scalar in 0..<0x80 { samples.append("a" + String(Character(Unicode.Scalar(UInt8(scalar)))) + "b") }
        for offset in 0..<20 {
            for special in ["\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "€", "\u{7F}", "\u{2028}", "\u{2029}", "\u{8}"] {
                var characters = Array(repeating: "a", count: 20)
                characters[offset] = special
                samples.append(characters.joined())
            }
        }
        return samples
    }

    @Test func encoderStyleMatchesJSONEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for text in Self.samples {
            let foundation = String(decoding: try encoder.encode([text]), as: UTF8.self).dropFirst().dropLast()
            #expect(Self.escaped(text, .encoder) == String(foundation), "\(text.debugDescription)")
        }
    }

    @Test func scriptSafeStyleMatchesTheProblemEscaper() {
        for text in Self.samples {
            #expect(Self.escaped(text, .scriptSafe) == Reference.problem(text), "\(text.debugDescription)")
        }
    }

    @Test func minimalStyleMatchesTheAuditDetailAndLogEscaper() {
        for text in Self.samples {
            #expect(Self.escaped(text, .minimal) == Reference.detail(text), "\(text.debugDescription)")
        }
    }

    @Test func bridgedStringsAreEscapedToo() {
        let bridged = NSString(string: "ns \"quoted\"\n\u{2028}") as String
        #expect(Self.escaped(bridged, .encoder) == "\"ns \\\"quoted\\\"\\n\u{2028}\"")
        #expect(Self.escaped(bridged, .scriptSafe) == #""ns \"quoted\"\n\u2028""#)
    }

    @Test func optionalsAndBooleans() {
        let bytes = ByteCursor.bytes { json in
            json.jsonOptionalString(nil)
            json.literal(",")
            json.jsonOptionalString("x")
            json.literal(",")
            json.jsonBool(true)
            json.literal(",")
            json.jsonBool(false)
        }
        #expect(String(decoding: bytes, as: UTF8.self) == #"null,"x",true,false"#)
    }
}

/// The escapers the package had before `ByteCursor.jsonString`, scalar by scalar: a short
/// form from `short`, else `\uXXXX` below U+0020 and for `hex`, else the scalar itself.
enum Reference {
    static func escaped(_ value: String, short: [Unicode.Scalar: String], hex: Set<UInt32> = []) -> String {
        var json = "\""
        for scalar in value.unicodeScalars {
            if let form = short[scalar] {
                json += form
            } else if scalar.value < 0x20 || hex.contains(scalar.value) {
                let digits = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            } else {
                json.unicodeScalars.append(scalar)
            }
        }
        return json + "\""
    }

    static let threeShortForms: [Unicode.Scalar: String] = [
        "\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
    ]

    /// ProblemJSON's: `\b \f` short too, and U+2028 and U+2029 as `\u2028`, `\u2029`.
    static func problem(_ value: String) -> String {
        escaped(value, short: threeShortForms.merging(["\u{8}": "\\b", "\u{C}": "\\f"]) { $1 }, hex: [0x2028, 0x2029])
    }

    /// DetailJSON's and the JSON log lines': only `\n \r \t` short.
    static func detail(_ value: String) -> String {
        escaped(value, short: threeShortForms)
    }
}
