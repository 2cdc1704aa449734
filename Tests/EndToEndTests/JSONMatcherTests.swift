import PermissionWire
import Testing

/// The documents' comparison itself must catch differences, or the walkthrough test proves nothing.
struct JSONMatcherTests {
    static func mismatches(_ expected: String, _ actual: String, captures: [String: String] = [:]) throws -> JSONMatcher {
        var matcher = JSONMatcher(captures: captures)
        matcher.match(try StrictJSON.parse(Array(expected.utf8)), try StrictJSON.parse(Array(actual.utf8)))
        return matcher
    }

    @Test("equal documents match; numbers compare by value; member order is irrelevant")
    func equal() throws {
        #expect(try Self.mismatches(#"{"a": 1, "b": [true, null]}"#, #"{"b":[true,null],"a":1.0}"#).mismatches.isEmpty)
    }

    @Test("a different value, a missing member and an unexpected member are each reported with their path")
    func differences() throws {
        let found = try Self.mismatches(#"{"a": {"s": "denied"}, "b": 1}"#, #"{"a": {"s": "authorized"}, "c": 2}"#).mismatches
        #expect(found.count == 3)
        #expect(found.contains { $0.hasPrefix("$.a.s:") })
        #expect(found.contains { $0.hasPrefix("$.b: missing") })
        #expect(found.contains { $0.hasPrefix("$.c: not expected") })
    }

    @Test("<any> matches anything, <any:N> captures a string, <same:N> requires the captured value")
    func placeholders() throws {
        let first = try Self.mismatches(#"{"at": "<any>", "id": "<any:P>"}"#, #"{"at": 5, "id": "p-1"}"#)
        #expect(first.mismatches.isEmpty)
        #expect(first.captures["P"] == "p-1")
        #expect(try Self.mismatches(#"{"id": "<same:P>"}"#, #"{"id": "p-1"}"#, captures: first.captures).mismatches.isEmpty)
        #expect(try Self.mismatches(#"{"id": "<same:P>"}"#, #"{"id": "p-2"}"#, captures: first.captures).mismatches.count == 1)
        #expect(try Self.mismatches(#"{"id": "<any:Q>"}"#, #"{"id": 3}"#).mismatches.count == 1)
    }

    @Test("\"...\" opens an object to more members and an array to more elements")
    func subsets() throws {
        #expect(try Self.mismatches(#"{"a": 1, "...": "..."}"#, #"{"a": 1, "b": 2}"#).mismatches.isEmpty)
        #expect(try Self.mismatches(#"[1, 2, "..."]"#, "[1, 2, 3]").mismatches.isEmpty)
        #expect(try Self.mismatches(#"[1, 2]"#, "[1, 2, 3]").mismatches.count == 1)
        #expect(try Self.mismatches(#"[1, 3, "..."]"#, "[1, 2, 3]").mismatches.count == 1)
    }
}
