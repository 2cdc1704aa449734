import HTTPCore
import Testing

@Suite("HTTPRequestParser: valid requests")
struct ParserTests {
    @Test func getWithQuery() throws {
        let input = bytes("GET /v1/users/u42/apps?state=pending&x=%20y HTTP/1.1\r\nHost: localhost:8080\r\nAccept: */*\r\n\r\n")
        guard case .complete(let head, let consumed) = HTTPRequestParser(limits: HTTPLimits()).parseHead(input) else {
            Issue.record("not complete")
            return
        }
        #expect(consumed == input.count)
        #expect(head.method == .get)
        #expect(head.target == "/v1/users/u42/apps?state=pending&x=%20y")
        #expect(head.path == "/v1/users/u42/apps")
        #expect(head.query == "state=pending&x=%20y")
        #expect(head.version == .http1_1)
        #expect(head.authority == "localhost:8080")
        #expect(head.keepAlive)
        #expect(head.framing == .none)
        #expect(!head.expectContinue)
        #expect(head.headers.count == 2)
        #expect(head.headers["accept"] == "*/*")
    }

    /// Field values are checked eight bytes at a time until a control byte: a tab, a DEL, a bare
    /// control or the CR at each offset of a long value, trailing whitespace trimmed, obs-text kept.
    @Test func fieldValuesAreCheckedAtEveryOffset() {
        for offset in 0..<24 {
            var value = Array(repeating: UInt8(ascii: "v"), count: 24)
            value[offset] = 0x09  // HTAB inside a value is allowed
            let head = bytes("GET / HTTP/1.1\r\nHost: h\r\nX-Long: ") + value + bytes("  \t \r\n\r\n")
            guard case .request(let r) = parseRequest(head) else {
                Issue.record("tab at \(offset)")
                continue
            }
            // A tab at either end is whitespace around the value (OWS), not part of it.
            let kept = value[(offset == 0 ? 1 : 0)..<(offset == 23 ? 23 : 24)]
            let expected = String(decoding: kept, as: UTF8.self)
            #expect(r.head.headers["X-Long"] == expected, "tab at \(offset)")
            for bad: UInt8 in [0x7F, 0x00, 0x1F, 0x0A] {
                var broken = Array(repeating: UInt8(ascii: "v"), count: 24)
                broken[offset] = bad
                let input = bytes("GET / HTTP/1.1\r\nHost: h\r\nX-Long: ") + broken + bytes("\r\n\r\n")
                #expect(parseRequest(input).status == 400, "byte \(bad) at \(offset)")
            }
        }
        let obsText: [UInt8] =
            bytes("GET / HTTP/1.1\r\nHost: h\r\nX-Obs: caf") + [0xC3, 0xA9] + bytes(" au lait, encore\r\n\r\n")
        guard case .request(let r) = parseRequest(obsText) else {
            Issue.record("obs-text")
            return
        }
        #expect(r.head.headers["X-Obs"] == "café au lait, encore")
    }

    @Test func emptyQueryIsPresentButEmpty() {
        guard case .request(let r) = parseRequest(bytes("GET /a? HTTP/1.1\r\nHost: h\r\n\r\n")) else {
            Issue.record("failed")
            return
        }
        #expect(r.head.path == "/a")
        #expect(r.head.query == "")
    }

    @Test func postWithContentLength() {
        let input = bytes("POST /v1/prompts/p1/decision HTTP/1.1\r\nHost: h\r\nContent-Length: 18\r\n\r\n{\"choice\":\"allow\"}")
        guard case .request(let r) = parseRequest(input) else {
            Issue.record("failed")
            return
        }
        #expect(r.head.method == .post)
        #expect(r.head.framing == .contentLength(18))
        #expect(r.body == bytes("{\"choice\":\"allow\"}"))
        #expect(r.consumed == input.count)
    }

    @Test func identicalContentLengthsCountAsOne() {
        let input = bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\ncontent-length: 003\r\n\r\nabcNEXT")
        guard case .request(let r) = parseRequest(input) else {
            Issue.record("failed")
            return
        }
        #expect(r.head.framing == .contentLength(3))
        #expect(r.body == bytes("abc"))
        #expect(r.consumed == input.count - 4)
    }

    @Test func chunkedWithExtensionsAndTrailers() {
        let input = bytes(
            "POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=\"q \\\"v\\\"\" ; x = 1;flag\r\nhello\r\n00006\r\n world\r\nA\r\n0123456789\r\n"
                + "0;last\r\nX-Checksum: abc \r\nX-Other:\tv2\r\n\r\n")
        guard case .request(let r) = parseRequest(input) else {
            Issue.record("\(parseRequest(input))")
            return
        }
        #expect(r.head.framing == .chunked)
        #expect(r.body == bytes("hello world0123456789"))
        #expect(r.trailers.fields.map(\.name) == ["X-Checksum", "X-Other"])
        #expect(r.trailers["x-checksum"] == "abc")
        #expect(r.trailers["X-OTHER"] == "v2")
        #expect(r.consumed == input.count)
    }

    @Test func transferEncodingCaseAndListsAcrossLines() {
        let input = bytes("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: ,\r\nTransfer-Encoding: CHUNKED\r\n\r\n0\r\n\r\n")
        guard case .request(let r) = parseRequest(input) else {
            Issue.record("failed")
            return
        }
        #expect(r.head.framing == .chunked)
        #expect(r.body.isEmpty)
    }

    @Test func absoluteFormAuthorityOverridesHost() {
        let input = bytes("GET http://example.com:8080/a/b?c=d HTTP/1.1\r\nHost: other.example\r\n\r\n")
        guard case .request(let r) = parseRequest(input) else {
            Issue.record("failed")
            return
        }
        #expect(r.head.authority == "example.com:8080")
        #expect(r.head.path == "/a/b")
        #expect(r.head.query == "c=d")
        #expect(r.head.target == "http://example.com:8080/a/b?c=d")
        #expect(r.head.headers["host"] == "other.example")
    }

    @Test func absoluteFormWithoutPathDefaultsToSlash() {
        for target in ["HTTPS://[::1]:443", "http://h?x=1"] {
            guard case .request(let r) = parseRequest(bytes("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n")) else {
                Issue.record("failed \(target)")
                continue
            }
            #expect(r.head.path == "/")
        }
    }

    @Test func optionsAsterisk() {
        guard case .request(let r) = parseRequest(bytes("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n")) else {
            Issue.record("failed")
            return
        }
        #expect(r.head.method == .options)
        #expect(r.head.path == "*")
        #expect(r.head.target == "*")
    }

    @Test func http10KeepAliveSemantics() {
        let cases: [(String, Bool)] = [
            ("GET / HTTP/1.0\r\n\r\n", false),
            ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\nConnection: Keep-Alive, foo\r\n\r\n", true),
            ("GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: h\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade, CLOSE\r\n\r\n", false),
        ]
        for (raw, keepAlive) in cases {
            guard case .request(let r) = parseRequest(bytes(raw)) else {
                Issue.record("failed: \(raw)")
                continue
            }
            #expect(r.head.keepAlive == keepAlive, "\(raw)")
        }
    }

    @Test func http10WithoutHostAndExpectIgnored() {
        guard case .request(let r) = parseRequest(bytes("PUT /x HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nz"))
        else {
            Issue.record("failed")
            return
        }
        #expect(r.head.version == .http1_0)
        #expect(r.head.authority == nil)
        #expect(!r.head.expectContinue)
        #expect(r.body == [0x7A])
    }

    @Test func expectContinue() {
        guard case .request(let r) = parseRequest(bytes("PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\n\r\n")) else {
            Issue.record("failed")
            return
        }
        #expect(r.head.expectContinue)
    }

    @Test func higherMinorVersionIsServedAs11() {
        guard case .request(let r) = parseRequest(bytes("GET / HTTP/1.7\r\nHost: h\r\n\r\n")) else {
            Issue.record("failed")
            return
        }
        #expect(r.head.version == .http1_1)
    }

    @Test func leadingEmptyLinesAreIgnored() {
        let input = bytes("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        guard case .complete(let head, let consumed) = HTTPRequestParser(limits: HTTPLimits()).parseHead(input) else {
            Issue.record("failed")
            return
        }
        #expect(head.path == "/")
        #expect(consumed == input.count)
    }

    @Test func pipelinedRequestsInOneBuffer() throws {
        let first = "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi"
        let second = "POST /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        let third = "GET /c HTTP/1.1\r\nHost: h\r\n\r\n"
        var buffer = bytes(first + second + third)
        var seen: [(String, [UInt8], Int)] = []
        while !buffer.isEmpty {
            guard case .request(let r) = parseRequest(buffer) else {
                Issue.record("failed at \(seen.count)")
                return
            }
            seen.append((r.head.path, r.body, r.consumed))
            buffer.removeFirst(r.consumed)
        }
        #expect(seen.map(\.0) == ["/a", "/b", "/c"])
        #expect(seen.map(\.1) == [bytes("hi"), bytes("abc"), []])
        #expect(seen.map(\.2) == [first.utf8.count, second.utf8.count, third.utf8.count])
    }

    @Test func headerOrderAndCaseInsensitiveLookup() {
        let input = bytes("GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nx-b:2\r\nX-A:   3   \r\nEmpty:\r\nObs: caf\u{E9}\r\n\r\n")
        guard case .request(let r) = parseRequest(input) else {
            Issue.record("failed")
            return
        }
        let fields = r.head.headers.fields
        #expect(fields.map(\.name) == ["Host", "X-A", "x-b", "X-A", "Empty", "Obs"])
        #expect(r.head.headers.values(for: "x-a") == ["1", "3"])
        #expect(r.head.headers["X-B"] == "2")
        #expect(r.head.headers["empty"] == "")
        #expect(r.head.headers["obs"] == "caf\u{E9}")
    }

    /// A head with `count` fields, `Host` last: up to 32 fields are scanned into stack memory,
    /// more into memory for the limit's worth; the fields, their order and the authority are the
    /// same either way, and one field over the limit is 431.
    @Test(arguments: [1, 31, 32, 33, 40, 99, 100, 101])
    func manyFieldsUpToTheLimit(count: Int) {
        let others = (0..<(count - 1)).map { "X-F\($0): v\($0)\r\n" }.joined()
        let input = bytes("GET /a HTTP/1.1\r\n" + others + "Host: example.org\r\n\r\n")
        let outcome = parseRequest(input)
        if count > HTTPLimits().maxHeaderCount {
            #expect(outcome.status == 431)
            return
        }
        guard case .request(let r) = outcome else {
            Issue.record("failed: \(outcome)")
            return
        }
        #expect(r.head.headers.count == count)
        #expect(r.head.headers.fields.map(\.name) == (0..<(count - 1)).map { "X-F\($0)" } + ["Host"])
        #expect(r.head.headers["x-f\(count / 2)"] == (count > 1 ? "v\(count / 2)" : nil))
        #expect(r.head.authority == "example.org")
        #expect(parseRequestIncrementally(input, cuts: Array(stride(from: 7, to: input.count, by: 7))) == outcome)
    }

    /// Field names come back exactly as sent, in any case and order, and lookups ignore case:
    /// usual names, other spellings of them, near misses of the same length, short and unusual
    /// names.
    @Test func fieldNamesKeepTheirSpelling() {
        let names = [
            "Host", "Authorization", "authorization", "AUTHORIZATION", "X-Request-Id", "x-request-id",
            "Accept", "Accept-Language", "Accept-Encoding", "Accept-Encodinx", "Cookie", "If-None-Match",
            "If-Match", "Cache-Control", "User-Agent", "Content-Type", "X-Requesu-Id", "Hosts", "X",
        ]
        let fields = names.dropFirst().enumerated().map { "\($1): v\($0)\r\n" }.joined()
        let outcome = parseRequest(bytes("GET / HTTP/1.1\r\nHost: h\r\n" + fields + "\r\n"))
        guard case .request(let r) = outcome else {
            Issue.record("failed: \(outcome)")
            return
        }
        #expect(r.head.headers.fields.map(\.name) == names)
        #expect(r.head.headers.fields.map(\.value) == ["h"] + names.dropFirst().indices.map { "v\($0 - 1)" })
        #expect(r.head.headers["authorization"] == "v0")
        #expect(r.head.headers.values(for: "AUTHORIZATION") == ["v0", "v1", "v2"])
    }

    /// Past the 32 fields that fit on the stack, the field limit and a malformed field decide
    /// the answer as before: a smaller limit, a bad field after the 32nd.
    @Test func fieldsPastTheStackKeepTheirErrors() {
        var limits = HTTPLimits()
        limits.maxHeaderCount = 40
        let fields = { (n: Int) in (0..<n).map { "X-F\($0): v\r\n" }.joined() }
        #expect(parseRequest(bytes("GET / HTTP/1.1\r\nHost: h\r\n" + fields(39) + "\r\n"), limits: limits).status == nil)
        #expect(parseRequest(bytes("GET / HTTP/1.1\r\nHost: h\r\n" + fields(40) + "\r\n"), limits: limits).status == 431)
        #expect(parseRequest(bytes("GET / HTTP/1.1\r\nHost: h\r\n" + fields(34) + "Bad Name: v\r\n\r\n")).status == 400)
        #expect(parseRequest(bytes("GET / HTTP/1.1\r\nHost: h\r\n" + fields(34))) == .needMore)
        limits.maxHeaderCount = 0
        #expect(parseRequest(bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), limits: limits).status == 431)
    }

    @Test func ipv6AndEmptyHost() {
        for raw in ["GET / HTTP/1.1\r\nHost: [2001:db8::1]:8080\r\n\r\n", "GET / HTTP/1.1\r\nHost:\r\n\r\n"] {
            guard case .request = parseRequest(bytes(raw)) else {
                Issue.record("failed: \(raw)")
                continue
            }
        }
    }

    @Test func incompleteHeadNeedsMore() {
        let parser = HTTPRequestParser(limits: HTTPLimits())
        for raw in [
            "", "\r", "\r\n", "GET", "GET / HTTP/1.", "GET / HTTP/1.1\r", "GET / HTTP/1.1\r\nHost: h\r\n",
            "GET / HTTP/1.1\r\nHost: h\r\n\r",
        ] {
            #expect(parser.parseHead(bytes(raw)) == .needMore, "\(raw)")
        }
    }
}
