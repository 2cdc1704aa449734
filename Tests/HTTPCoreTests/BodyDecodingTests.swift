import HTTPCore
import Testing

@Suite("HTTPBodyDecoder")
struct BodyDecodingTests {
    @Test func noBodyIsCompleteAtOnce() throws {
        var decoder = HTTPBodyDecoder(framing: .none, limits: HTTPLimits())
        var body: [UInt8] = []
        let (consumed, complete) = try decoder.decode(bytes("GET / HTTP/1.1\r\n"), into: &body)
        #expect(consumed == 0)
        #expect(complete)
        #expect(decoder.isComplete)
    }

    @Test func contentLengthStopsAtTheEnd() throws {
        var decoder = HTTPBodyDecoder(framing: .contentLength(5), limits: HTTPLimits())
        var body: [UInt8] = []
        var r = try decoder.decode(bytes("he"), into: &body)
        #expect(r.consumed == 2 && !r.complete)
        r = try decoder.decode(bytes("lloGET"), into: &body)
        #expect(r.consumed == 3 && r.complete)
        #expect(body == bytes("hello"))
        r = try decoder.decode(bytes("more"), into: &body)
        #expect(r.consumed == 0 && r.complete)
    }

    @Test func contentLengthOverTheLimit() {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 4
        var decoder = HTTPBodyDecoder(framing: .contentLength(5), limits: limits)
        var body: [UInt8] = []
        #expect(throws: HTTPParseError.contentTooLarge) { try decoder.decode(bytes("hello"), into: &body) }
    }

    @Test func chunkedAtExactlyTheLimit() throws {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 6
        var decoder = HTTPBodyDecoder(framing: .chunked, limits: limits)
        var body: [UInt8] = []
        let r = try decoder.decode(bytes("3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n"), into: &body)
        #expect(r.complete)
        #expect(body == bytes("abcdef"))
        #expect(decoder.decodedCount == 6)
    }

    /// 413 as soon as the chunk size is known, before its data arrives.
    @Test func chunkedOverTheLimitFailsAtTheSizeLine() {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 6
        var decoder = HTTPBodyDecoder(framing: .chunked, limits: limits)
        var body: [UInt8] = []
        #expect(throws: HTTPParseError.contentTooLarge) { try decoder.decode(bytes("3\r\nabc\r\n4\r\n"), into: &body) }
    }

    /// Each chunk-size line is bounded, and so is their sum against the content they announce:
    /// a byte of content behind a kilobyte of extensions, over and over, is refused once past
    /// the allowance; one-byte chunks with short extensions are not.
    @Test func chunkExtensionsAreBoundedByTheirContent() throws {
        let padded = "1;" + String(repeating: "e", count: 1_000) + "\r\nx\r\n"
        var decoder = HTTPBodyDecoder(framing: .chunked, limits: HTTPLimits())
        var body: [UInt8] = []
        #expect(throws: HTTPParseError.badRequest("Chunk-size lines too long for the content they announce.")) {
            try decoder.decode(bytes(String(repeating: padded, count: 2_000)), into: &body)
        }
        #expect(body.count < 10, "refused after a few chunks: \(body.count)")

        var small = HTTPBodyDecoder(framing: .chunked, limits: HTTPLimits())
        var content: [UInt8] = []
        let r = try small.decode(bytes(String(repeating: "1;ext=v\r\nx\r\n", count: 20_000) + "0\r\n\r\n"), into: &content)
        #expect(r.complete && content.count == 20_000)
    }

    @Test func errorsRepeat() {
        var decoder = HTTPBodyDecoder(framing: .chunked, limits: HTTPLimits())
        var body: [UInt8] = []
        #expect(throws: HTTPParseError.self) { try decoder.decode(bytes("zz\r\n"), into: &body) }
        #expect(throws: HTTPParseError.self) { try decoder.decode(bytes("0\r\n\r\n"), into: &body) }
        #expect(!decoder.isComplete)
    }

    @Test func chunkLineLimitCountsExtensions() throws {
        var limits = HTTPLimits()
        limits.maxChunkLineBytes = 8
        var ok = HTTPBodyDecoder(framing: .chunked, limits: limits)
        var body: [UInt8] = []
        #expect(try ok.decode(bytes("1;a=bcde\r\nx\r\n0\r\n\r\n"), into: &body).complete)
        var tooLong = HTTPBodyDecoder(framing: .chunked, limits: limits)
        #expect(throws: HTTPParseError.self) { try tooLong.decode(bytes("1;a=bcdef\r\nx\r\n0\r\n\r\n"), into: &body) }
        // also when the line has not ended yet
        var unended = HTTPBodyDecoder(framing: .chunked, limits: limits)
        #expect(throws: HTTPParseError.self) { try unended.decode(bytes("1;aaaaaaaaaa"), into: &body) }
    }

    @Test func trailerLimit() throws {
        var limits = HTTPLimits()
        limits.maxTrailerBytes = 12
        var ok = HTTPBodyDecoder(framing: .chunked, limits: limits)
        var body: [UInt8] = []
        // "A: 1234\r\n" (9) + "\r\n" (2) = 11 bytes of trailer section
        #expect(try ok.decode(bytes("0\r\nA: 1234\r\n\r\n"), into: &body).complete)
        #expect(ok.trailers["a"] == "1234")
        var over = HTTPBodyDecoder(framing: .chunked, limits: limits)
        #expect(throws: HTTPParseError.headerFieldsTooLarge) { try over.decode(bytes("0\r\nA: 123456\r\n\r\n"), into: &body) }
    }

    @Test func leadingZerosAndUppercaseHex() throws {
        var decoder = HTTPBodyDecoder(framing: .chunked, limits: HTTPLimits())
        var body: [UInt8] = []
        let input = bytes("000B\r\nhello world\r\n0000\r\n\r\n")
        let r = try decoder.decode(input, into: &body)
        #expect(r == (input.count, true))
        #expect(body == bytes("hello world"))
    }

    @Test func consumesEverythingUntilComplete() throws {
        var decoder = HTTPBodyDecoder(framing: .chunked, limits: HTTPLimits())
        var body: [UInt8] = []
        for piece in ["5;ext", "=\"a b\"\r", "\nhel", "lo\r", "\n0\r\nX-", "T: v\r\n", "\r"] {
            let r = try decoder.decode(bytes(piece), into: &body)
            #expect(r == (piece.utf8.count, false), "\(piece)")
        }
        let last = try decoder.decode(bytes("\nGET"), into: &body)
        #expect(last == (1, true))
        #expect(body == bytes("hello"))
        #expect(decoder.trailers["x-t"] == "v")
    }
}
