import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Streamed downloads (`PermissionClient.download`, `permctl users export`) against scripted
/// peers on loopback: what reaches the sink, error statuses, content types, retries, a body cut
/// short with or without `Content-Length`, and a peer that stops sending.
@Suite("Streamed downloads", .serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct DownloadTests {
    /// A small export document with a quote and brackets inside a string.
    static let document = #"""
        {"audit":[{"entry":{"reason":"a \"quoted\" ]} text"},"seq":1}],"consentRecords":[],\#
        "exportedAt":"2026-11-27T11:04:13.346Z","head":{"hash":"abc","seq":1},\#
        "prompts":[{"id":"p1"},{"id":"p2"}],"user":"u42"}
        """#

    static func exportAnswer(_ body: String = document) -> ScriptedServer.Action {
        .respond(status: 200, headers: [("Content-Type", "application/json"), ("X-Request-Id", "srv-7")], body: body)
    }

    @Test func theBodyReachesTheSinkInOrderWithTheHeadChecked() async throws {
        let server = try ScriptedServer { _, _ in Self.exportAnswer() }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        let collected = Collected()
        let response = try await client.download(Endpoints.exportDocument(user: "u42")) { chunk in
            collected.append(chunk)
            return true
        }
        #expect(collected.text == Self.document)
        #expect(response.value == Int64(Self.document.utf8.count) && response.status == 200 && response.requestId == "srv-7")
        let request = try #require(server.requests.first)
        #expect(request.target == "/v1/users/u42/export" && request.headers["accept"] == "application/json")

        var blocking: [UInt8] = []
        let again = try client.downloadBlocking(Endpoints.exportDocument(user: "u42")) { chunk in
            blocking.append(contentsOf: chunk)
            return true
        }
        #expect(blocking == Array(Self.document.utf8) && again.value == Int64(blocking.count))
    }

    /// A URL libcurl refuses (longer than its 8 MB input limit) fails the call before any
    /// transfer, and the next call on the pooled handle works: the sink's lent closure does not
    /// stay in the handle (it would trap as escaped from `withoutActuallyEscaping`).
    @Test func aRefusedURLFailsTheDownloadAndLeavesTheHandleClean() async throws {
        let server = try ScriptedServer { _, _ in Self.exportAnswer() }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        await #expect(throws: PermissionClientError.self) {
            _ = try await client.download(Endpoints.exportDocument(user: String(repeating: "u", count: 9_000_000))) { _ in
                Issue.record("no byte may reach the sink")
                return true
            }
        }
        #expect(server.requests.isEmpty)
        let collected = Collected()
        _ = try await client.download(Endpoints.exportDocument(user: "u42")) { chunk in
            collected.append(chunk)
            return true
        }
        #expect(collected.text == Self.document)
    }

    @Test func anErrorStatusIsTheProblemAndReachesNoSink() async throws {
        let server = try ScriptedServer { _, _ in .problem(403, slug: "forbidden", detail: "not yours", requestId: "srv-9") }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        var taken = 0
        do {
            _ = try client.downloadBlocking(Endpoints.exportDocument(user: "u42")) { chunk in
                taken += chunk.count
                return true
            }
            Issue.record("expected the 403")
        } catch {
            #expect(error.status == 403 && error.problemType == .forbidden && error.requestId == "srv-9", "\(error)")
        }
        #expect(taken == 0)
    }

    /// A 2xx that is not the endpoint's media type (a proxy's page) is a decoding error before
    /// any byte reaches the sink.
    @Test func aSuccessOfAnotherContentTypeReachesNoSink() throws {
        let server = try ScriptedServer { _, _ in
            .respond(status: 200, headers: [("Content-Type", "text/html")], body: "<html>maintenance</html>")
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        var taken = 0
        do {
            _ = try client.downloadBlocking(Endpoints.exportDocument(user: "u42")) { chunk in
                taken += chunk.count
                return true
            }
            Issue.record("expected a decoding error")
        } catch {
            guard case .decoding(200, let message, _) = error else {
                Issue.record("expected a decoding error, got \(error)")
                return
            }
            #expect(message.contains("text/html"))
        }
        #expect(taken == 0)
    }

    /// A 503 before any byte is retried like any `GET`; a connection lost after the sink took
    /// bytes is not (they cannot be taken back), and the shortfall is an error.
    @Test func retriesOnlyBeforeTheSinkTookBytes() throws {
        let flaky = try ScriptedServer { _, index in
            index == 0 ? .problem(503, slug: "unavailable", detail: "starting") : Self.exportAnswer()
        }
        defer { flaky.stop() }
        var bytes: [UInt8] = []
        let response = try TransportTests.client(flaky).downloadBlocking(Endpoints.exportDocument(user: "u42")) { chunk in
            bytes.append(contentsOf: chunk)
            return true
        }
        #expect(response.attempts == 2 && bytes == Array(Self.document.utf8))

        let cut = try ScriptedServer { _, _ in .cut(announced: 5000, sent: String(Self.document.prefix(40))) }
        defer { cut.stop() }
        let cutClient = try TransportTests.client(cut)
        var taken = 0
        do {
            _ = try cutClient.downloadBlocking(Endpoints.exportDocument(user: "u42")) { chunk in
                taken += chunk.count
                return true
            }
            Issue.record("expected the cut body to fail")
        } catch {
            guard case .transport(18, _, _) = error else {
                Issue.record("expected a partial body error, got \(error)")
                return
            }
        }
        #expect(taken == 40 && cut.requests.count == 1)
    }

    /// A sink that refuses bytes ends the download with `writeFailedCode`; a descriptor the
    /// body cannot be written to likewise, with the reason.
    @Test func aSinkThatFailsEndsTheDownload() throws {
        let server = try ScriptedServer { _, _ in Self.exportAnswer() }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        #expect(throws: PermissionClientError.transport(code: 23, message: "the sink stopped the download", requestId: "srv-7")) {
            _ = try client.downloadBlocking(Endpoints.exportDocument(user: "u42")) { _ in false }
        }
        let readOnly = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(readOnly) }
        do {
            _ = try client.downloadBlocking(Endpoints.exportDocument(user: "u42"), toFileDescriptor: readOnly)
            Issue.record("expected the write to fail")
        } catch {
            #expect(
                error
                    == .transport(
                        code: 23, message: "cannot write to descriptor \(readOnly): Bad file descriptor", requestId: "srv-7"))
        }
    }

    /// The timeout bounds each wait for a byte: a body that stops coming fails within about the
    /// timeout (libcurl's progress callback looks about once a second), though a download has
    /// no total timeout.
    @Test func aBodyThatStopsComingTimesOut() throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n"
        let server = try ScriptedServer { _, _ in .rawThenSilence(head + "{\"audit\":[") }
        defer { server.stop() }
        let client = try TransportTests.client(server, timeout: .milliseconds(700))
        let started = ContinuousClock.now
        var taken = 0
        do {
            _ = try client.downloadBlocking(Endpoints.exportDocument(user: "u42")) { chunk in
                taken += chunk.count
                return true
            }
            Issue.record("expected a timeout")
        } catch {
            #expect(error.isTimeout, "\(error)")
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(700) && elapsed < .seconds(5), "\(elapsed)")
        #expect(taken == 10 && server.requests.count == 1)
    }

    /// `permctl users export --output` keeps a file only when the whole document came: a body
    /// shorter than its `Content-Length`, or one without a length cut before its object closed,
    /// exits 69 and leaves nothing; a whole one without a head, or about another user, exits 1
    /// and leaves nothing; a complete one is written and summarized.
    @Test func permctlKeepsOnlyACompleteDocument() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("download-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("u42.json").path
        let unframed = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
        let cuts: [ScriptedServer.Action] = [
            .cut(announced: Self.document.utf8.count, sent: String(Self.document.dropLast(1))),
            .raw(unframed + String(Self.document.dropLast(1))),
            .raw(unframed + String(Self.document.prefix(60))),
        ]
        for cut in cuts {
            let server = try ScriptedServer { _, _ in cut }
            defer { server.stop() }
            let result = try Permctl.run(["users", "export", "u42", "--output", file], url: server.url, key: "k1")
            #expect(result.status == 69, "\(cut): \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [], "\(cut)")
            let printed = try Permctl.run(["users", "export", "u42"], url: server.url, key: "k1")
            #expect(printed.status == 69, "\(cut): \(printed.stderr)")
        }

        // Whole, but not this user's export: exit 1, and no file either.
        let headless = Self.document.replacingOccurrences(of: #""head":{"hash":"abc","seq":1},"#, with: "")
        let another = Self.document.replacingOccurrences(of: #""user":"u42""#, with: #""user":"u43""#)
        for (body, why) in [(headless, "no user or head"), (another, "about u43, not u42")] {
            let server = try ScriptedServer { _, _ in .raw(unframed + body) }
            defer { server.stop() }
            let result = try Permctl.run(["users", "export", "u42", "--output", file], url: server.url, key: "k1")
            #expect(result.status == 1 && result.stderr.contains(why), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [], "\(why)")
        }

        let whole = try ScriptedServer { _, _ in .raw(unframed + Self.document) }
        defer { whole.stop() }
        let written = try Permctl.run(["users", "export", "u42", "--output", file, "--json"], url: whole.url, key: "k1")
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == Self.document)
        #expect(
            written.stdout.trimmingCharacters(in: .newlines)
                == #"{"auditEntries":1,"consentRecords":0,"file":"\#(file)","head":{"hash":"abc","seq":1},"prompts":2,"user":"u42"}"#,
            "\(written.stdout)")
        let printed = try Permctl.run(["users", "export", "u42"], url: whole.url, key: "k1")
        #expect(printed.status == 0 && printed.stdout == Self.document + "\n", "\(printed.stderr)")
    }
}

/// Chunks a `@Sendable` sink collects.
private final class Collected: @unchecked Sendable {
    // @unchecked: `bytes` is guarded by `lock`.
    private let lock = NSLock()
    private var bytes: [UInt8] = []

    func append(_ chunk: UnsafeRawBufferPointer) {
        lock.withLock { bytes.append(contentsOf: chunk) }
    }

    var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
}
