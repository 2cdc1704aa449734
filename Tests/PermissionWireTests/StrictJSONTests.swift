import PermissionWire
import Testing

/// The strict reader on literal bytes: what it accepts, and a table of hostile inputs it must
/// refuse with the right kind and a message that says why.
@Suite struct StrictJSONTests {
    struct Hostile: Sendable, CustomStringConvertible {
        let name: String
        let bytes: [UInt8]
        let kind: WireDecodingError.Kind
        let fragment: String
        var description: String { name }

        init(_ name: String, _ text: String, _ fragment: String, kind: WireDecodingError.Kind = .invalidJSON) {
            self.init(name, Array(text.utf8), fragment, kind: kind)
        }

        init(_ name: String, _ bytes: [UInt8], _ fragment: String, kind: WireDecodingError.Kind = .invalidJSON) {
            self.name = name
            self.bytes = bytes
            self.kind = kind
            self.fragment = fragment
        }
    }

    static let hostile: [Hostile] = [
        Hostile("empty body", "", "empty body"),
        Hostile("only whitespace", " \n\t ", "empty body"),
        Hostile(
            "array nesting bomb", String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000),
            "nesting deeper than 32"),
        Hostile(
            "object nesting bomb", String(repeating: "{\"a\":", count: 40) + "1" + String(repeating: "}", count: 40),
            "nesting deeper than 32"),
        Hostile("33 levels", String(repeating: "[", count: 33) + String(repeating: "]", count: 33), "nesting deeper than 32"),
        Hostile("duplicate member", #"{"status":"denied","status":"authorized"}"#, "duplicate member 'status'"),
        Hostile("duplicate via escape", #"{"level":1,"\u006cevel":2}"#, "duplicate member 'level'"),
        Hostile("nested duplicate", #"{"a":{"b":1,"b":2}}"#, "duplicate member 'b'"),
        Hostile("invalid UTF-8 byte", [0x22, 0x61, 0xFF, 0x22], "invalid UTF-8 byte 0xFF"),
        Hostile("overlong slash", [0x22, 0xC0, 0xAF, 0x22], "invalid UTF-8 byte 0xC0"),
        Hostile("overlong three-byte", [0x22, 0xE0, 0x80, 0xAF, 0x22], "invalid UTF-8 sequence"),
        Hostile("UTF-8 encoded surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 sequence"),
        Hostile("above U+10FFFF", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "invalid UTF-8 sequence"),
        Hostile("truncated sequence", [0x22, 0xE2, 0x82], "truncated UTF-8"),
        Hostile("lone continuation byte", [0x22, 0x80, 0x22], "invalid UTF-8 byte 0x80"),
        Hostile("lone high surrogate", #""\uD83D""#, "lone surrogate \\uD83D"),
        Hostile("lone low surrogate", #""\uDE00""#, "lone surrogate \\uDE00"),
        Hostile("high then non-low", #""\uD83D\u0041""#, "lone surrogate"),
        Hostile("high then text", #""\uD83Dabc""#, "lone surrogate"),
        Hostile("short \\u", #""\u12""#, "four hex digits"),
        Hostile("invalid escape", #""\x41""#, "invalid escape '\\x'"),
        Hostile("raw newline in string", "\"a\nb\"", "unescaped control character 0xA"),
        Hostile("raw NUL in string", [0x22, 0x00, 0x22], "unescaped control character 0x0"),
        Hostile("unterminated string", #"{"a":"b"#, "unterminated string"),
        Hostile("trailing comma in object", #"{"a":1,}"#, "trailing comma"),
        Hostile("trailing comma in array", "[1,2,]", "trailing comma"),
        Hostile("line comment", "{\"a\":1 // c\n}", "comments are not allowed"),
        Hostile("block comment", "/* c */ {}", "comments are not allowed"),
        Hostile("byte order mark", [0xEF, 0xBB, 0xBF, 0x7B, 0x7D], "byte order mark"),
        Hostile("NaN", #"{"a":NaN}"#, "NaN and Infinity are not allowed"),
        Hostile("Infinity", "[Infinity]", "NaN and Infinity are not allowed"),
        Hostile("negative Infinity", "-Infinity", "a digit must follow '-'"),
        Hostile("leading zero", "[012]", "leading zeros"),
        Hostile("bare fraction", "[.5]", "unexpected '.'"),
        Hostile("dot without digits", "[1.]", "a digit must follow '.'"),
        Hostile("exponent without digits", "[1e+]", "a digit must follow the exponent"),
        Hostile("plus sign", "[+1]", "unexpected '+'"),
        Hostile("hex number", "[0x10]", "unexpected 'x'"),
        Hostile("single quotes", "{'a':1}", "strings must use double quotes"),
        Hostile("unquoted key", "{a:1}", "member name in double quotes"),
        Hostile("trailing garbage", #"{"a":1} x"#, "after the JSON value"),
        Hostile("two documents", "{}{}", "after the JSON value"),
        Hostile("truncated literal", "tru", "where a value was expected"),
        Hostile("capitalized literal", "True", "where a value was expected"),
        Hostile("missing colon", #"{"a" 1}"#, "where ':' was expected"),
        Hostile("missing comma", "[1 2]", "where ',' or ']' was expected"),
        Hostile("non-breaking space as whitespace", [0x5B, 0xC2, 0xA0, 0x31, 0x5D], "unexpected byte 0xC2"),
        Hostile("vertical tab as whitespace", [0x5B, 0x0B, 0x31, 0x5D], "unexpected byte 0xB"),
        Hostile("unclosed array", "[1,2", "unexpected end of input"),
        Hostile("over the size limit", Array(repeating: 0x20, count: 65_537), "larger than the limit", kind: .tooLarge),
    ]

    @Test(arguments: hostile)
    func refusesHostileInput(_ input: Hostile) {
        #expect {
            _ = try StrictJSON.parse(input.bytes)
        } throws: { error in
            guard let error = error as? WireDecodingError else { return false }
            return error.kind == input.kind && error.message.contains(input.fragment)
        }
    }

    @Test func atLeastTwentyFiveHostileInputs() {
        #expect(Self.hostile.count >= 25)
    }

    @Test func thirtyTwoLevelsAreFine() throws {
        let text = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        _ = try StrictJSON.parse(Array(text.utf8))
    }

    @Test func depthLimitIsConfigurable() {
        #expect(throws: WireDecodingError.self) { try StrictJSON.parse(Array("[[[]]]".utf8), limits: .init(maxDepth: 2)) }
        #expect(throws: WireDecodingError.self) { try StrictJSON.parse(Array("[1, 2]".utf8), limits: .init(maxBytes: 5)) }
    }

    @Test func errorsNameTheirPath() throws {
        do {
            _ = try StrictJSON.parse(Array(#"{"a":[1,{"b~/c":[NaN]}]}"#.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.path == "/a/1/b~0~1c/0")
            #expect(error.description.hasPrefix("a/1/b~0~1c/0: NaN and Infinity are not allowed"))
        }
    }

    @Test func readsEveryKindOfValue() throws {
        let text =
            #" {"s":"a\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00é","n":[0,-0,-1.5e-3,1E+2,123456789012345678901234567890e999],"#
            + #""b":[true,false],"z":null,"o":{},"a":[]} "#
        let value = try StrictJSON.parse(Array(text.utf8))
        #expect(
            value
                == .object([
                    "s": .string("a\"\\/\u{8}\u{C}\n\r\té😀é"),
                    "n": .array([
                        .number("0"), .number("-0"), .number("-1.5e-3"), .number("1E+2"),
                        .number("123456789012345678901234567890e999"),
                    ]),
                    "b": .array([.bool(true), .bool(false)]),
                    "z": .null, "o": .object([:]), "a": .array([]),
                ]))
    }

    @Test func hugeNumbersAreKeptAsText() throws {
        let digits = String(repeating: "9", count: 5000)
        #expect(try StrictJSON.parse(Array(digits.utf8)) == .number(digits))
        #expect(try StrictJSON.parse(Array("-1e99999".utf8)) == .number("-1e99999"))
    }

    @Test func scalarsAtTheTopLevelAreValues() throws {
        #expect(try StrictJSON.parse(Array(" \"x\" ".utf8)) == .string("x"))
        #expect(try StrictJSON.parse(Array("null".utf8)) == .null)
    }

    @Test func escapedNULAndNoncharactersAreAllowed() throws {
        #expect(try StrictJSON.parse(Array(#""\u0000\uFFFF""#.utf8)) == .string("\u{0}\u{FFFF}"))
    }

    @Test func validMultiByteSequencesPass() throws {
        let text = "\"ß € 𐍈 \u{10FFFF} \u{D7FF} \u{E000}\""
        #expect(try StrictJSON.parse(Array(text.utf8)) == .string("ß € 𐍈 \u{10FFFF} \u{D7FF} \u{E000}"))
    }
}
