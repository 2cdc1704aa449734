import HTTPCore
import Testing

/// The response serializer and problem renderer, on literal bytes.
@Suite struct ResponseWriterTests {
    func serialize(
        _ response: HTTPResponse, isHead: Bool = false, version: HTTPVersion = .http1_1, keepAlive: Bool = true
    ) -> (text: String, action: HTTPResponseBodyAction) {
        let serialized = serializeKeepingAlive(response, isHead: isHead, version: version, keepAlive: keepAlive)
        return (serialized.text, serialized.action)
    }

    /// ``serialize(_:isHead:version:keepAlive:)``, with whether the connection stays open after.
    func serializeKeepingAlive(
        _ response: HTTPResponse, isHead: Bool = false, version: HTTPVersion = .http1_1, keepAlive: Bool = true
    ) -> (text: String, action: HTTPResponseBodyAction, keepAlive: Bool) {
        var writer = HTTPResponseWriter(serverName: nil)
        var out: [UInt8] = []
        var keepAlive = keepAlive
        let action = writer.write(response, isHead: isHead, version: version, keepAlive: &keepAlive, into: &out)
        return (String(decoding: out, as: UTF8.self), action, keepAlive)
    }

    func withoutDate(_ text: String) -> String {
        text.split(separator: "\r\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Date: ") }.joined(
            separator: "\r\n")
    }

    @Test func bytesBodyGetsContentLengthAndOneBuffer() {
        let (text, _) = serialize(
            HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/plain", "Content-Length": "999"], body: .bytes(Array("hello".utf8))))
        #expect(withoutDate(text) == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
    }

    /// The head is built in a scratch buffer sized beforehand: many and large fields, a long
    /// reason, a server name, HTTP/1.0 keep-alive, after bytes already queued.
    @Test func largeHeadsFitTheirBound() {
        var fields: [(String, String)] = (0..<50).map { ("X-Field-\($0)", String(repeating: "v", count: $0 * 7)) }
        fields.append(("X-Huge", String(repeating: "h", count: 100_000)))
        let response = HTTPResponse(
            status: HTTPStatus(code: 299, reason: String(repeating: "r", count: 300)), headers: HTTPHeaders(fields),
            body: .bytes(Array("body".utf8)))
        var writer = HTTPResponseWriter(serverName: "permission-service/1.0")
        var out = Array("queued".utf8)
        var keepAlive = true
        _ = writer.write(response, isHead: false, version: .http1_0, keepAlive: &keepAlive, into: &out)
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.hasPrefix("queuedHTTP/1.1 299 " + String(repeating: "r", count: 300) + "\r\n"))
        #expect(text.contains("\r\nX-Field-49: " + String(repeating: "v", count: 343) + "\r\n"))
        #expect(text.contains("\r\nX-Huge: " + String(repeating: "h", count: 100_000) + "\r\n"))
        #expect(text.contains("\r\nServer: permission-service/1.0\r\n"))
        #expect(text.hasSuffix("Content-Length: 4\r\nConnection: keep-alive\r\n\r\nbody"))
    }

    /// A handler's field cannot split the head, whatever input reached it: a value's CR, LF and
    /// other controls (HTAB aside) go out as spaces, a name that is no token is left out.
    @Test func handlerFieldsCannotSplitTheHead() {
        let headers = HTTPHeaders([
            ("Location", "/x\r\nSet-Cookie: s=1"), ("X A", "v"), ("X-B\r\nSet-Cookie", "w"), ("", "empty"),
            ("X-Tab", "a\tb\u{7F}c\u{0}d"), ("X-Fine", "ok"),
        ])
        let (text, _) = serialize(HTTPResponse(status: .ok, headers: headers, body: .bytes([])))
        #expect(
            withoutDate(text)
                == "HTTP/1.1 200 OK\r\nLocation: /x  Set-Cookie: s=1\r\nX-Tab: a\tb c d\r\nX-Fine: ok\r\nContent-Length: 0\r\n\r\n"
        )
    }

    @Test func headKeepsLengthDropsBody() {
        let (text, _) = serialize(HTTPResponse(status: .ok, body: .bytes(Array("hello".utf8))), isHead: true)
        #expect(withoutDate(text) == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
    }

    @Test func noContentAndNotModifiedHaveNoLengthNoBody() {
        #expect(
            withoutDate(serialize(HTTPResponse(status: .noContent, body: .bytes([1, 2]))).text)
                == "HTTP/1.1 204 No Content\r\n\r\n")
        #expect(
            withoutDate(serialize(HTTPResponse(status: .notModified, body: .bytes([1]))).text)
                == "HTTP/1.1 304 Not Modified\r\n\r\n")
    }

    /// Every status the server sends has its RFC 9110 §15 reason phrase, not a made-up one.
    @Test func everyStatusSentHasItsReasonPhrase() {
        let sent = [200, 201, 204, 303, 304, 400, 401, 403, 404, 405, 406, 409, 410, 412, 413, 415, 422, 428, 429, 500, 503]
        for code in sent {
            #expect(!HTTPStatus.standardReason(code).hasPrefix("Status "), "\(code)")
        }
        #expect(
            withoutDate(serialize(HTTPResponse(status: .seeOther, headers: ["Location": "/a"])).text)
                == "HTTP/1.1 303 See Other\r\nLocation: /a\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func connectionFieldFollowsPersistence() {
        #expect(
            withoutDate(serialize(HTTPResponse(), keepAlive: false).text)
                == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        #expect(
            withoutDate(serialize(HTTPResponse(), version: .http1_0).text)
                == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n")
    }

    @Test func streamIsChunkedOn11AndCloseDelimitedOn10() {
        let stream = HTTPResponse(body: .stream { _ in })
        let (text, action) = serialize(stream)
        #expect(withoutDate(text) == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        guard case .stream(_, let chunked) = action else {
            Issue.record("expected a stream")
            return
        }
        #expect(chunked)
        let (old, oldAction) = serialize(stream, version: .http1_0)
        #expect(withoutDate(old) == "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
        guard case .stream(_, let oldChunked) = oldAction else {
            Issue.record("expected a stream")
            return
        }
        #expect(!oldChunked)
    }

    /// A HEAD to a stream sends the fields GET would: to an HTTP/1.0 client `Connection: close`,
    /// and the connection then closes as it says; an HTTP/1.1 one stays open.
    @Test func aHeadToA10StreamClosesAsItsHeadSays() {
        let stream = HTTPResponse(body: .stream { _ in })
        let old = serializeKeepingAlive(stream, isHead: true, version: .http1_0)
        #expect(withoutDate(old.text) == "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
        #expect(!old.keepAlive)
        guard case .done = old.action else {
            Issue.record("a HEAD sends no body")
            return
        }
        let current = serializeKeepingAlive(stream, isHead: true)
        #expect(withoutDate(current.text) == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(current.keepAlive)
        #expect(serializeKeepingAlive(HTTPResponse(), isHead: true, version: .http1_0).keepAlive)
    }

    @Test func dateIsIMFFixdate() {
        #expect(String(decoding: HTTPResponseDate.format(784111777), as: UTF8.self) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(String(decoding: HTTPResponseDate.format(0), as: UTF8.self) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test func problemJSONEscapesStrings() {
        #expect(ProblemJSON.quoted("a\"b\\c\nd\u{1}é\u{2028}") == "\"a\\\"b\\\\c\\nd\\u0001é\\u2028\"")
        let response = ProblemJSON.response(status: .notFound, detail: nil, requestId: "r")
        guard case .bytes(let body) = response.body else {
            Issue.record("expected bytes")
            return
        }
        #expect(
            String(decoding: body, as: UTF8.self)
                == "{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404,\"requestId\":\"r\"}")
    }
}
