import HTTPCore
import Testing

@Suite("percentDecode and parseQuery")
struct PercentDecodingTests {
    @Test func plainTextIsUnchanged() {
        #expect(percentDecode("com.example.maps") == "com.example.maps")
        #expect(percentDecode("") == "")
        #expect(percentDecode("a+b") == "a+b")
    }

    @Test func escapesAreDecoded() {
        #expect(percentDecode("x%20y") == "x y")
        #expect(percentDecode("%41%62%7e") == "Ab~")
        #expect(percentDecode("caf%C3%A9") == "café")
        #expect(percentDecode("%F0%9F%98%80") == "😀")
        #expect(percentDecode("a+b", plusAsSpace: true) == "a b")
        #expect(percentDecode("a%2Bb", plusAsSpace: true) == "a+b")
    }

    /// The router splits on raw "/" first, so an encoded slash stays inside its segment.
    @Test func encodedSlashStaysInTheSegment() {
        let path = "/v1/users/a%2Fb/apps"
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let decoded = segments.map { percentDecode($0) }
        #expect(decoded == ["v1", "users", "a/b", "apps"])
    }

    @Test(arguments: ["%", "%2", "%zz", "a%g0", "%%41", "x%2"])
    func invalidEscapes(_ s: String) {
        #expect(percentDecode(Substring(s)) == nil)
    }

    @Test(arguments: [
        "%FF", "%C3", "%C3%28", "%C0%AF",  // invalid lead, truncated, bad continuation, overlong "/"
        "%E0%80%AF", "%ED%A0%80", "%F4%90%80%80", "%F0%9F%98",  // overlong, surrogate, > U+10FFFF, truncated
        "%80",
    ])
    func invalidUTF8(_ s: String) {
        #expect(percentDecode(Substring(s)) == nil)
    }

    @Test func queryPairsInOrder() throws {
        let pairs = try #require(parseQuery("state=pending&x=a%20b&flag&empty=&&b=1+2&state=again&eq=a=b"))
        #expect(pairs.map(\.name) == ["state", "x", "flag", "empty", "b", "state", "eq"])
        #expect(pairs.map(\.value) == ["pending", "a b", "", "", "1 2", "again", "a=b"])
    }

    @Test func emptyQuery() throws {
        #expect(try #require(parseQuery("")).isEmpty)
    }

    @Test func invalidQuery() {
        #expect(parseQuery("a=%zz") == nil)
        #expect(parseQuery("a%FF=1") == nil)
    }
}
