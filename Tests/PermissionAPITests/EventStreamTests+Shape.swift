import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

extension EventStreamTests {
    /// Collects a stream body and ends it (as a client that leaves does) once `marker` arrived.
    final class LeavingWriter: HTTPBodyWriter {
        let marker: String
        private(set) var bytes: [UInt8] = []
        init(leavingAfter marker: String) { self.marker = marker }
        var text: String { String(decoding: bytes, as: UTF8.self) }
        func write(_ bytes: [UInt8]) throws {
            self.bytes.append(contentsOf: bytes)
            if text.contains(marker) { throw TestFailure("client left") }
        }
        func flush() throws {}
    }

    /// The events of `text` as a client's parser yields them (WHATWG HTML §9.2.6): blocks
    /// separated by a blank line, `name: value` fields; comment-only blocks are no events.
    static func events(_ text: String) -> [[String: String]] {
        text.components(separatedBy: "\n\n").compactMap { block -> [String: String]? in
            var fields: [String: String] = [:]
            for line in block.split(separator: "\n") where !line.hasPrefix(":") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                var value = line[line.index(after: colon)...]
                if value.first == " " { value = value.dropFirst() }
                fields[String(line[..<colon])] = String(value)
            }
            return fields.isEmpty ? nil : fields
        }
    }

    /// Each event is openapi.yaml's `AuditEvent`: exactly `id` (the seq), `event` (the action)
    /// and `data` (the entry as JSON), which is what schemathesis validates every event against.
    @Test func everyEventHasTheDocumentedShape() throws {
        let app = try TestApp()
        try app.set("camera", #"{"status":"denied"}"#)
        try app.policy("p1", #"{"service":"camera","app":null,"user":"u42","effect":"restrict"}"#)
        try app.send(.delete, "/v1/policies/p1")
        guard let produce = try Self.eventStream(app, lastEventID: "0") else { return }
        let writer = LeavingWriter(leavingAfter: "id: 3\n")
        #expect(throws: TestFailure.self) { try produce(writer) }
        let events = Self.events(writer.text)
        #expect(events.count == 3, "\(writer.text)")
        for (index, event) in events.enumerated() {
            #expect(Set(event.keys) == ["id", "event", "data"], "\(event)")
            let entry = try WireDecoder.decodeResponse(AuditEntry.self, from: Array((event["data"] ?? "").utf8))
            #expect(event["id"] == String(index + 1))
            #expect(entry.seq == Int64(index + 1))
            #expect(event["event"] == entry.action)
        }
        #expect(events.map { $0["event"] } == ["authorization.set", "policy.put", "policy.deleted"])
    }

    /// `after` and `Last-Event-ID` are both checked; the header wins when both are valid.
    @Test(
        "a malformed start is 400 whichever one carries it",
        arguments: [
            ("/v1/events?after=9223372036854775808", "41"), ("/v1/events?after=-1", "41"),
            ("/v1/events?after=1", "+5"), ("/v1/events", "12345678901234567890"), ("/v1/events", "4 1"),
        ])
    func malformedStarts(target: String, lastEventID: String) throws {
        let app = try TestApp()
        let response = try app.send(.get, target, headers: [("Last-Event-ID", lastEventID)])
        #expect(response.status == 400, "\(target) Last-Event-ID: \(lastEventID)")
        #expect(response.problemType == .invalidRequest)
        #expect(app.application.openEventStreams == 0)
    }

    /// `GET /v1/events` with `Last-Event-ID`, called on the responder: the stream's producer,
    /// or nil (with an issue recorded) when the answer is not a 200 stream.
    private static func eventStream(
        _ app: TestApp, lastEventID: String
    ) throws -> (@Sendable (any HTTPBodyWriter) throws -> Void)? {
        let response = try app.application.responder.respond(
            to: HTTPRequest(
                head: HTTPRequestHead(
                    method: .get, target: "/v1/events", path: "/v1/events", query: nil, version: .http1_1,
                    headers: ["Host": "test", "Authorization": "Bearer \(app.adminKey)", "Last-Event-ID": lastEventID],
                    authority: "test", keepAlive: true, framing: .none, expectContinue: false)),
            context: RequestContext(requestId: "r", logger: quietLogger, remoteAddress: "-"))
        #expect(response.status.code == 200)
        guard case .stream(let produce) = response.body else {
            Issue.record("expected a stream")
            return nil
        }
        return produce
    }
}
