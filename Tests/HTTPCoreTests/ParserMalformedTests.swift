import HTTPCore
import Testing

/// One hostile or malformed request and the status it must be answered with.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var raw: String
    var status: Int
    var testDescription: String { "\(name) → \(status)" }

    init(_ name: String, _ raw: String, _ status: Int) {
        self.name = name
        self.raw = raw
        self.status = status
    }
}

private let get = "GET / HTTP/1.1\r\nHost: h\r\n"
private let post = "POST / HTTP/1.1\r\nHost: h\r\n"
private let chunked = post + "Transfer-Encoding: chunked\r\n\r\n"
private let manyHeaders = (0...100).map { "X-\($0): v\r\n" }.joined()

let malformedCases: [MalformedCase] = [
    // Request smuggling (RFC 9112 §6.1, §6.3)
    MalformedCase("CL and TE", post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
    MalformedCase("TE and CL", post + "Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n0\r\n\r\n", 400),
    MalformedCase("TE with obs-fold", post + "Transfer-Encoding:\r\n chunked\r\n\r\n", 400),
    MalformedCase("chunked, chunked", post + "Transfer-Encoding: chunked, chunked\r\n\r\n", 400),
    MalformedCase("chunked twice on two lines", post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    MalformedCase("chunked, gzip", post + "Transfer-Encoding: chunked, gzip\r\n\r\n", 400),
    MalformedCase("final coding gzip", post + "Transfer-Encoding: gzip\r\n\r\n", 400),
    MalformedCase("gzip, chunked", post + "Transfer-Encoding: gzip, chunked\r\n\r\n", 501),
    MalformedCase("unknown coding before chunked", post + "Transfer-Encoding: x-foo, chunked\r\n\r\n", 501),
    MalformedCase("space before colon", post + "Transfer-Encoding : chunked\r\n\r\n", 400),
    MalformedCase("tab before colon", post + "Content-Length\t: 1\r\n\r\nx", 400),
    MalformedCase("TE garbage", post + "Transfer-Encoding: chun ked\r\n\r\n", 400),
    MalformedCase("TE quoted", post + "Transfer-Encoding: \"chunked\"\r\n\r\n", 400),
    MalformedCase("TE empty", post + "Transfer-Encoding:\r\n\r\n", 400),
    MalformedCase("chunked with parameter", post + "Transfer-Encoding: chunked;q=1\r\n\r\n", 400),
    MalformedCase("TE in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
    MalformedCase("CL +5", post + "Content-Length: +5\r\n\r\nhello", 400),
    MalformedCase("CL -1", post + "Content-Length: -1\r\n\r\n", 400),
    MalformedCase("CL 0x10", post + "Content-Length: 0x10\r\n\r\n", 400),
    MalformedCase("CL 5 5", post + "Content-Length: 5 5\r\n\r\nhello", 400),
    MalformedCase("CL empty", post + "Content-Length:\r\n\r\n", 400),
    MalformedCase("CL list with empty element", post + "Content-Length: 5,\r\n\r\nhello", 400),
    MalformedCase("CL differing duplicates", post + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400),
    MalformedCase("CL differing list", post + "Content-Length: 5, 6\r\n\r\nhello!", 400),
    MalformedCase("CL overflow", post + "Content-Length: 99999999999999999999999\r\n\r\n", 400),
    MalformedCase("CL over the body limit", post + "Content-Length: 1048577\r\n\r\n", 413),
    // Chunked bodies (RFC 9112 §7.1)
    MalformedCase("negative chunk size", chunked + "-5\r\nhello\r\n0\r\n\r\n", 400),
    MalformedCase("chunk size 0x", chunked + "0x5\r\nhello\r\n0\r\n\r\n", 400),
    MalformedCase("chunk size with space", chunked + "5 \r\nhello\r\n0\r\n\r\n", 400),
    MalformedCase("chunk size empty", chunked + "\r\nhello\r\n0\r\n\r\n", 400),
    MalformedCase("chunk size hex overflow", chunked + "fffffffffffffffffff\r\n", 400),
    MalformedCase("chunk size over the body limit", chunked + "100001\r\n", 413),
    MalformedCase(
        "chunks summing over the limit", chunked + "80000\r\n" + String(repeating: "a", count: 0x80000) + "\r\n80001\r\n", 413),
    MalformedCase("chunk data without CRLF", chunked + "5\r\nhelloX\r\n0\r\n\r\n", 400),
    MalformedCase("chunk data with bare LF", chunked + "5\r\nhello\n0\r\n\r\n", 400),
    MalformedCase("chunk line with bare LF", chunked + "5\nhello\r\n0\r\n\r\n", 400),
    MalformedCase(
        "too long extension line", chunked + "5;" + String(repeating: "e", count: 2000) + "\r\nhello\r\n0\r\n\r\n", 400),
    MalformedCase("bad extension", chunked + "5;=x\r\nhello\r\n0\r\n\r\n", 400),
    MalformedCase("unterminated quoted extension", chunked + "5;a=\"x\r\nhello\r\n0\r\n\r\n", 400),
    MalformedCase("trailer with obs-fold", chunked + "0\r\nA: b\r\n c\r\n\r\n", 400),
    MalformedCase("trailer without colon", chunked + "0\r\nnocolon\r\n\r\n", 400),
    MalformedCase("trailers too large", chunked + "0\r\nX: " + String(repeating: "t", count: 9000) + "\r\n\r\n", 431),
    // Field values and line endings (RFC 9112 §2.2, §5; RFC 9110 §5.5)
    MalformedCase("NUL in value", get + "X: a\u{0}b\r\n\r\n", 400),
    MalformedCase("CR in value", get + "X: a\rb\r\n\r\n", 400),
    MalformedCase("LF in value (bare LF)", get + "X: a\nb: c\r\n\r\n", 400),
    MalformedCase("escape in value", get + "X: a\u{1B}b\r\n\r\n", 400),
    MalformedCase("DEL in value", get + "X: a\u{7F}\r\n\r\n", 400),
    MalformedCase("bare CR ending the request line", "GET / HTTP/1.1\rHost: h\r\n\r\n", 400),
    MalformedCase("bare LF ending the request line", "GET / HTTP/1.1\nHost: h\r\n\r\n", 400),
    MalformedCase("bare LF ending the head", get + "\n", 400),
    MalformedCase("bare LF before the request line", "\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("obs-fold", get + "X: a\r\n b\r\n\r\n", 400),
    MalformedCase("whitespace before the first field", "GET / HTTP/1.1\r\n Host: h\r\n\r\n", 400),
    MalformedCase("line without colon", get + "NoColon\r\n\r\n", 400),
    MalformedCase("empty field name", get + ": v\r\n\r\n", 400),
    MalformedCase("invalid field name", get + "X(y): v\r\n\r\n", 400),
    // Limits
    MalformedCase("overlong request line", "GET /" + String(repeating: "a", count: 8200) + " HTTP/1.1\r\nHost: h\r\n\r\n", 414),
    MalformedCase("overlong request line, no CRLF yet", "GET /" + String(repeating: "a", count: 8200), 414),
    MalformedCase("too many headers", get + manyHeaders + "\r\n", 431),
    MalformedCase("header section too large", get + "X: " + String(repeating: "v", count: 17000) + "\r\n\r\n", 431),
    MalformedCase("header section too large, incomplete", get + "X: " + String(repeating: "v", count: 17000), 431),
    // Host (RFC 9112 §3.2)
    MalformedCase("missing Host in 1.1", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400),
    MalformedCase("duplicate Host", get + "Host: h\r\n\r\n", 400),
    MalformedCase("duplicate Host in 1.0", "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400),
    MalformedCase("Host with space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
    MalformedCase("Host with a port and no host", "GET / HTTP/1.1\r\nHost: :80\r\n\r\n", 400),
    MalformedCase("Host with path", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", 400),
    MalformedCase("Host with userinfo", "GET / HTTP/1.1\r\nHost: u@a\r\n\r\n", 400),
    MalformedCase("Host with bad port", "GET / HTTP/1.1\r\nHost: a:8o\r\n\r\n", 400),
    MalformedCase("Host with unbracketed IPv6", "GET / HTTP/1.1\r\nHost: ::1\r\n\r\n", 400),
    MalformedCase("Host with unterminated IPv6", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", 400),
    // Request line (RFC 9112 §3)
    MalformedCase("HTTP/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
    MalformedCase("HTTP/0.9", "GET / HTTP/0.9\r\nHost: h\r\n\r\n", 505),
    MalformedCase("HTTP/1", "GET / HTTP/1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("HTTP/1.10", "GET / HTTP/1.10\r\nHost: h\r\n\r\n", 400),
    MalformedCase("lowercase http/1.1", "GET / http/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("no version", "GET /\r\nHost: h\r\n\r\n", 400),
    MalformedCase("garbage", "\u{16}\u{3}\u{1}\u{2}\u{0}\u{1}\u{0}", 400),
    MalformedCase("tab in request line", "GET\t/ HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("double space", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("trailing space", "GET / HTTP/1.1 \r\nHost: h\r\n\r\n", 400),
    MalformedCase("leading space", " GET / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("invalid method", "GE(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("fragment in target", "GET /a#frag HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("non-ASCII target", "GET /caf\u{E9} HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("quote in target", "GET /a\"b HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("bad escape in target", "GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("brackets in origin-form", "GET /[x] HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("authority-form", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 400),
    MalformedCase("asterisk with GET", "GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("relative target", "GET a/b HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("absolute-form with empty host", "GET http:///a HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("absolute-form, empty host with a port", "GET http://:80/ HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("absolute-form, empty host and port", "GET http://:/ HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("absolute-form with userinfo", "GET http://u:p@h/ HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    MalformedCase("absolute-form, other scheme", "GET ftp://h/ HTTP/1.1\r\nHost: h\r\n\r\n", 400),
    // Expect (RFC 9110 §10.1.1)
    MalformedCase("unknown expectation", get + "Expect: 200-ok\r\n\r\n", 417),
    MalformedCase("expectation with 100-continue", get + "Expect: 100-continue, foo\r\n\r\n", 417),
]

@Suite("HTTPRequestParser: malformed and hostile requests")
struct ParserMalformedTests {
    @Test func tableIsLargeEnough() {
        #expect(malformedCases.count >= 40)
    }

    @Test(arguments: malformedCases)
    func rejected(_ c: MalformedCase) {
        let outcome = parseRequest(bytes(c.raw))
        #expect(outcome.status == c.status, "\(c.name): \(outcome)")
    }

    /// The same answer when the bytes arrive one at a time, as a slow client sends them.
    @Test(arguments: malformedCases.filter { $0.raw.utf8.count < 3000 })
    func rejectedByteByByte(_ c: MalformedCase) {
        let input = bytes(c.raw)
        let outcome = parseRequestIncrementally(input, cuts: Array(input.indices.dropFirst()))
        #expect(outcome == parseRequest(input), "\(c.name)")
    }

    @Test func smallLimitsApply() {
        var limits = HTTPLimits()
        limits.maxRequestLineBytes = 16
        limits.maxHeaderBytes = 64
        limits.maxHeaderCount = 2
        limits.maxBodyBytes = 4
        #expect(parseRequest(bytes("GET /0123456789ab HTTP/1.1\r\n"), limits: limits).status == 414)
        // exactly 16 bytes of request line is fine
        #expect(parseRequest(bytes("GET /a HTTP/1.1\r\nHost: h\r\n\r\n"), limits: limits).status == nil)
        #expect(parseRequest(bytes("GET /a HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n"), limits: limits).status == 431)
        #expect(
            parseRequest(
                bytes("GET /a HTTP/1.1\r\nHost: h\r\nA: " + String(repeating: "x", count: 40) + "\r\n\r\n"), limits: limits
            ).status == 431)
        #expect(parseRequest(bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"), limits: limits).status == 413)
        #expect(parseRequest(bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nhell"), limits: limits).status == nil)
    }
}
