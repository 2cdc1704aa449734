import Testing

@testable import HTTPCore

/// Field-name lookup is ASCII case-insensitive and nothing more (RFC 9110 §5.1).
@Suite struct HeaderLookupTests {
    @Test(arguments: [
        ("Content-Type", "content-type", true),
        ("X-REQUEST-ID", "x-request-id", true),
        ("Authorization", "Authorization", true),
        ("", "", true),
        // Bytes that differ only in bit 0x20 but are not letters: "@" and "`", "[" and "{", "^" and "~".
        ("a@", "a`", false),
        ("[", "{", false),
        ("^", "~", false),
        ("Host", "Hostx", false),
        ("Host", "Hosu", false),
        // Longer than a small string (15 bytes), so the bytes live on the heap.
        ("X-Some-Rather-Long-Field-Name", "x-some-rather-long-field-namE", true),
        ("X-Some-Rather-Long-Field-Name", "x-some-rather-long-field-nam_", false),
        // Non-ASCII bytes are compared as they are, never folded.
        ("Ä-Field", "ä-field", false),
        ("Ä-Field", "Ä-FIELD", true),
    ])
    func comparesIgnoringASCIICaseOnly(_ a: String, _ b: String, _ equal: Bool) {
        #expect(a.equalsIgnoringASCIICase(b) == equal)
        #expect(b.equalsIgnoringASCIICase(a) == equal)
    }

    @Test func subscriptFindsTheFirstFieldOfAnyCase() {
        var headers: HTTPHeaders = ["Host": "example.com", "x-request-id": "one"]
        headers.add(name: "X-Request-Id", value: "two")
        #expect(headers["X-REQUEST-ID"] == "one")
        #expect(headers.values(for: "x-Request-id") == ["one", "two"])
        #expect(headers["Hos"] == nil)
        headers.replaceOrAdd(name: "X-Request-ID", value: "three")
        #expect(headers.values(for: "x-request-id") == ["three"])
        #expect(headers.count == 2)
    }
}
