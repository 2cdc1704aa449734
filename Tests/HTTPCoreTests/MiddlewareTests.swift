import Foundation
import HTTPCore
import Logging
import Testing

/// A log handler that records every line with its merged metadata, to check the request id.
final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    struct Line {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }
    private let lock = NSLock()
    private var stored: [Line] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.lock()
        stored.append(
            Line(level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
        lock.unlock()
    }

    var lines: [Line] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// The built-in middleware: request id, access log, errors as problem+json, live.
@Suite struct MiddlewareTests {
    struct Boom: Error {}

    static func start(recorder: RecordingLogHandler) throws -> LiveServer {
        var router = Router()
        router.use(RequestIdMiddleware())
        router.use(AccessLogMiddleware())
        router.use(ErrorMiddleware())
        router.get("/ok") { _, context in
            context.logger.info("handler ran")
            return textResponse(context.requestId)
        }
        router.get("/teapot") { _, _ in
            throw HTTPError(
                HTTPStatus(code: 418, reason: "I'm a teapot"), type: "https://example.com/teapot",
                detail: "Short and \"stout\"\n",
                headers: ["Retry-After": "5"], extensions: [("spout", "true")])
        }
        router.get("/boom") { _, _ in throw Boom() }
        router.get("/early-hints") { _, _ in HTTPResponse(status: HTTPStatus(code: 103), body: .bytes([])) }
        router.get("/late-hints") { _, _ in
            let deferred = HTTPDeferredResponse()
            deferred.complete(.success(HTTPResponse(status: HTTPStatus(code: 102), body: .bytes([]))))
            return .deferred(deferred)
        }
        router.get("/status-1000") { _, _ in HTTPResponse(status: HTTPStatus(code: 1000), body: .bytes([])) }
        router.get("/odd-reason") { _, _ in
            HTTPResponse(status: HTTPStatus(code: 299, reason: "Odd\u{0}\treason\u{7F}\r\nX: y"), body: .bytes([]))
        }
        var config = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        config.sweepInterval = .milliseconds(50)
        let server = HTTPServer(
            configuration: config, responder: router.buildResponder(), logger: Logger(label: "test") { _ in recorder })
        try server.start()
        return LiveServerHandle(server)
    }

    @Test func saneRequestIdIsEchoedAndLogged() throws {
        let recorder = RecordingLogHandler()
        let live = try Self.start(recorder: recorder)
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/ok", "X-Request-Id: abc-123.x:y_z\r\n"))
        let response = try client.readResponse()
        #expect(response.headers["X-Request-Id"] == "abc-123.x:y_z")
        #expect(response.text == "abc-123.x:y_z")
        let handlerLine = recorder.lines.first { $0.message == "handler ran" }
        #expect(handlerLine?.metadata["request-id"] == .string("abc-123.x:y_z"))
        let access = recorder.lines.first { $0.message.hasPrefix("GET /ok 200") }
        #expect(access?.level == .info)
        #expect(access?.metadata["request-id"] == .string("abc-123.x:y_z"))
        #expect(access?.metadata["bytes"] == .string("13"))
    }

    @Test func insaneRequestIdIsReplaced() throws {
        let live = try Self.start(recorder: RecordingLogHandler())
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/ok", "X-Request-Id: bad id with spaces\r\n"))
        let response = try client.readResponse()
        let id = try #require(response.headers["X-Request-Id"])
        #expect(id != "bad id with spaces")
        #expect(RequestIdMiddleware.isSane(id))
        #expect(response.text == id)
        #expect(!RequestIdMiddleware.isSane(String(repeating: "a", count: 129)))
        #expect(!RequestIdMiddleware.isSane(""))
    }

    /// Generated ids are "<server>-<connection>-<request>", the last two in base 36: one
    /// connection's ids share the stem and count up (…-9, …-a, …-z, …-10), another's differ.
    @Test func generatedRequestIdsCountUpPerConnection() throws {
        let live = try Self.start(recorder: RecordingLogHandler())
        defer { live.stop() }
        let client = try live.client()
        var ids: [String] = []
        for _ in 0..<37 {
            try client.send(rawGet("/ok"))
            ids.append(try #require(try client.readResponse().headers["X-Request-Id"]))
        }
        let stem = String(ids[0].dropLast())  // "<server>-<connection>-"
        #expect(ids[0] == stem + "1" && ids[8] == stem + "9" && ids[9] == stem + "a")
        #expect(ids[34] == stem + "z" && ids[35] == stem + "10" && ids[36] == stem + "11")
        #expect(Set(ids).count == ids.count && ids.allSatisfy { $0.hasPrefix(stem) && RequestIdMiddleware.isSane($0) })
        let other = try live.client()
        try other.send(rawGet("/ok"))
        let otherId = try #require(try other.readResponse().headers["X-Request-Id"])
        #expect(!otherId.hasPrefix(stem) && otherId.hasSuffix("-1"))
    }

    @Test func httpErrorBecomesProblemJSON() throws {
        let live = try Self.start(recorder: RecordingLogHandler())
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/teapot", "X-Request-Id: r1\r\n"))
        let response = try client.readResponse()
        #expect(response.status == 418)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(response.headers["Retry-After"] == "5")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(object["type"] as? String == "https://example.com/teapot")
        #expect(object["title"] as? String == "I'm a teapot")
        #expect(object["status"] as? Int == 418)
        #expect(object["detail"] as? String == "Short and \"stout\"\n")
        #expect(object["requestId"] as? String == "r1")
        #expect(object["spout"] as? Bool == true)
    }

    @Test func unknownErrorBecomesGeneric500AndIsLogged() throws {
        let recorder = RecordingLogHandler()
        let live = try Self.start(recorder: recorder)
        defer { live.stop() }
        let client = try live.client()
        try client.send(
            rawGet("/boom", "X-Request-Id: r2\r\n") + rawGet("/missing")
                + "POST /ok HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 500)
        #expect(!response.text.contains("Boom"))
        #expect(response.text.contains("\"requestId\":\"r2\""))
        #expect(recorder.lines.contains { $0.level == .error && $0.metadata["request-id"] == .string("r2") })
        let missing = try client.readResponse()
        #expect(missing.status == 404)
        #expect(missing.headers["X-Request-Id"] != nil)
        let wrongMethod = try client.readResponse()
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["Allow"] == "GET, HEAD, OPTIONS")
    }
}

extension MiddlewareTests {
    /// A handler's status that cannot end a request (a 1xx, a code past 599) is the server's
    /// failure: a logged 500, and the connection serves the next request. A reason phrase's
    /// control characters go out as spaces, its CR and LF not at all.
    @Test func aHandlersNonFinalStatusIsA500() throws {
        let recorder = RecordingLogHandler()
        let live = try Self.start(recorder: recorder)
        defer { live.stop() }
        let client = try live.client()
        try client.send(
            rawGet("/early-hints", "X-Request-Id: r3\r\n") + rawGet("/status-1000", "X-Request-Id: r4\r\n")
                + rawGet("/late-hints", "X-Request-Id: r5\r\n") + rawGet("/odd-reason") + rawGet("/ok"))
        for requestId in ["r3", "r4", "r5"] {
            let response = try client.readResponse()
            #expect(response.status == 500)
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.text.contains("\"requestId\":\"\(requestId)\""))
            #expect(
                recorder.lines.contains {
                    $0.level == .error && $0.metadata["request-id"] == .string(requestId)
                        && "\($0.metadata["error"] ?? "")".contains("is not a final status")
                })
        }
        let odd = try client.readResponse()
        #expect(odd.status == 299)
        #expect(odd.reason == "Odd \treason X: y")
        #expect(odd.headers["X"] == nil)
        #expect(try client.readResponse().status == 200)
    }
}

/// Wraps an already started server in the `LiveServer` helper shape.
func LiveServerHandle(_ server: HTTPServer) -> LiveServer { LiveServer(started: server) }

extension LiveServer {
    init(started: HTTPServer) { server = started }
}
