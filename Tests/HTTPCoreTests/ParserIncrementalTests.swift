import HTTPCore
import Testing

/// Valid requests with bodies of every framing, followed by the start of a pipelined request.
let incrementalRequests: [String] = [
    "GET /v1/users/u42/apps/com.example.maps/authorizations/location?x=1 HTTP/1.1\r\nHost: localhost:8080\r\nAccept: */*\r\n\r\nGET /next",
    "\r\nPOST /v1/prompts/p1/decision HTTP/1.1\r\nHost: h\r\nContent-Length: 18\r\n\r\n{\"choice\":\"allow\"}POST",
    "POST /up HTTP/1.1\r\nHost: [::1]:80\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n"
        + "5;name=\"q \\\"v\\\"\"\r\nhello\r\n1 ; a = b\r\n,\r\nA\r\n0123456789\r\n0\r\nX-Checksum: abc\r\nX-B: \r\n\r\nGET / HTTP/1.1\r\n",
    "PUT http://example.com/a?b=c HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    "OPTIONS * HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 4\r\n\r\nbody",
]

@Suite("HTTPRequestParser and HTTPBodyDecoder: any split gives the same request")
struct ParserIncrementalTests {
    @Test(arguments: incrementalRequests)
    func everyTwoWaySplit(_ raw: String) throws {
        let input = bytes(raw)
        let whole = parseRequest(input)
        guard case .request(let expected) = whole else {
            Issue.record("not a valid request: \(whole)")
            return
        }
        #expect(expected.consumed <= input.count)
        for k in 1..<input.count {
            let split = parseRequestIncrementally(input, cuts: [k])
            #expect(split == whole, "split at \(k)")
        }
    }

    @Test(arguments: incrementalRequests)
    func byteByByte(_ raw: String) {
        let input = bytes(raw)
        let whole = parseRequest(input)
        let split = parseRequestIncrementally(input, cuts: Array(input.indices.dropFirst()))
        #expect(split == whole)
    }

    @Test(arguments: incrementalRequests)
    func everyThreeWaySplitOfTheBody(_ raw: String) {
        let input = bytes(raw)
        guard case .request(let expected) = parseRequest(input),
            case .complete(_, let headBytes) = HTTPRequestParser(limits: HTTPLimits()).parseHead(input)
        else {
            Issue.record("not a valid request")
            return
        }
        for a in headBytes..<expected.consumed {
            for b in a..<expected.consumed where (b - a) % 3 == 0 {
                #expect(parseRequestIncrementally(input, cuts: [a, b]) == .request(expected), "cuts \(a) \(b)")
            }
        }
    }

    @Test func everyPrefixOfAHeadNeedsMore() {
        let input = bytes("\r\nGET /a?b HTTP/1.1\r\nHost: h\r\nX: y\r\n\r\n")
        let parser = HTTPRequestParser(limits: HTTPLimits())
        for k in 0..<input.count {
            #expect(parser.parseHead(Array(input[0..<k])) == .needMore, "prefix \(k)")
        }
        guard case .complete(_, let consumed) = parser.parseHead(input) else {
            Issue.record("incomplete")
            return
        }
        #expect(consumed == input.count)
    }

    /// An invalid byte is reported as soon as it arrives, without waiting for the line to end.
    @Test func invalidBytesFailEarly() {
        let parser = HTTPRequestParser(limits: HTTPLimits())
        #expect(parser.parseHead(bytes("\u{16}\u{3}")).isFailure)
        #expect(parser.parseHead(bytes("GET\u{3}")) == .failure(.badRequest("Invalid character in the method.")))
        #expect(parser.parseHead(bytes("GET /a b")).isFailure)
        #expect(parser.parseHead(bytes("GET / HTTQ")).isFailure)
        #expect(parser.parseHead(bytes("GET / HTTP/1.1\r\nHost: h\r\nX: \u{0}")).isFailure)
    }
}

extension HTTPHeadParseResult {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
