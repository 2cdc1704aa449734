import Foundation
import HTTPCore
import PermissionWire
import Testing

/// The export streamed over real sockets, on either store: chunked and complete, the
/// snapshot it reads from given back whichever way the response ends (sent whole, a `HEAD`,
/// a client that leaves or stops reading, one too slow for `--export-timeout`, a failure after
/// the head), and a failure after the head ending the body without its last chunk, so the
/// client sees it incomplete.
@Suite struct ExportStreamTests {
    /// A live server over a TestApp whose user `u42` has `records` authorization records (about
    /// 420 bytes each in the document), written straight into the database.
    struct Live {
        let app: TestApp
        let server: HTTPServer

        init(
            records: Int, pageSize: Int = 500, exportTimeout: Duration = .seconds(600),
            _ adjust: (inout HTTPServerConfiguration) -> Void = { _ in }
        ) throws {
            app = try TestApp {
                $0.service.exportPageSize = pageSize
                $0.service.maxExportRecords = 1_000_000
                $0.exportTimeout = exportTimeout
            }
            try Self.seed(app, records: records)
            server = try EngineRefusalTests.server(app, adjust)
        }

        func stop() {
            app.application.stop()
            EngineRefusalTests.stop(server)
        }

        /// `u42`'s records for apps `com.example.app0`... (never registered), camera granted.
        static func seed(_ app: TestApp, records: Int) throws {
            if let sqlite = app.sqliteStore {
                try sqlite.pool.write { database in
                    try database.execute(
                        """
                        INSERT INTO authorizations (user, app, service, status, level, provisional, once, expires_at,
                            reason, purpose, declined_levels, updated_at, version)
                        WITH RECURSIVE a(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM a WHERE j + 1 < \(records))
                        SELECT 'u42', 'com.example.app' || j, 'camera', 'authorized', 'full', 0, 0, NULL, 'userConsent',
                            'Your camera scans receipts.', '', 1795000000000, 1 FROM a
                        """)
                }
            } else {
                try app.executeOnPostgres(
                    """
                    INSERT INTO authorizations (user_id, app, service, status, level, provisional, once, expires_at,
                        reason, purpose, declined_levels, updated_at, version)
                    SELECT 'u42', 'com.example.app' || j, 'camera', 'authorized', 'full', false, false, NULL,
                        'userConsent', 'Your camera scans receipts.', '', 1795000000000, 1
                    FROM generate_series(0, \(records) - 1) AS j
                    """)
            }
        }

        /// Sends `request` (the admin key added) on a new connection.
        func send(_ method: String, _ target: String, receiveBuffer: Int32? = nil) throws -> Socket {
            let socket = try Socket.connect(host: "127.0.0.1", port: server.localPort)
            if let receiveBuffer { try socket.setReceiveBufferSize(receiveBuffer) }
            try socket.setTimeouts(milliseconds: 5000)
            try socket.sendAll(
                Array(
                    "\(method) \(target) HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(app.adminKey)\r\nConnection: close\r\n\r\n"
                        .utf8))
            return socket
        }

        /// Waits (5 s at most) until the open snapshots hold `count` connections.
        func waitForSnapshots(_ count: Int) throws {
            let deadline = ContinuousClock.now + .seconds(5)
            while app.snapshotConnectionsInUse != count {
                guard ContinuousClock.now < deadline else {
                    throw TestFailure("snapshot connections: \(app.snapshotConnectionsInUse), not \(count)")
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    /// What a connection received until the server closed it (`reset`: with RST).
    struct Received {
        var bytes: [UInt8] = []
        var reset = false

        var head: String {
            let text = String(decoding: bytes, as: UTF8.self)
            return text.range(of: "\r\n\r\n").map { String(text[..<$0.lowerBound]) } ?? text
        }

        /// The chunked body's data, and whether its last chunk came (RFC 9112 §7.1).
        var body: (data: [UInt8], complete: Bool) {
            guard let start = bytes.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound else { return ([], false) }
            var data: [UInt8] = []
            var index = start
            while let lineEnd = bytes[index...].firstRange(of: Array("\r\n".utf8)) {
                guard let size = Int(String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self), radix: 16) else {
                    return (data, false)
                }
                if size == 0 { return (data, bytes[lineEnd.upperBound...].elementsEqual(Array("\r\n".utf8))) }
                guard lineEnd.upperBound + size + 2 <= bytes.count else { return (data, false) }
                data += bytes[lineEnd.upperBound..<(lineEnd.upperBound + size)]
                index = lineEnd.upperBound + size + 2
            }
            return (data, false)
        }
    }

    /// Reads until the server ends the connection; fails when it does not within 5 s.
    static func readToEnd(_ socket: Socket) throws -> Received {
        var received = Received()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count: Int?
            do {
                count = try chunk.withUnsafeMutableBytes { try socket.read(into: $0.baseAddress!, count: $0.count) }
            } catch {
                received.reset = true  // ECONNRESET: the server aborted the connection
                return received
            }
            guard let count else { throw TestFailure("the server did not end the response: \(received.head)") }
            if count == 0 { return received }
            received.bytes += chunk[0..<count]
        }
    }

    /// Records enough for a document (about 21 MB) larger than what the kernel buffers between
    /// the server and a client that does not read (a loopback socket's send buffer grows to
    /// 4 MiB): the stream then waits for the client.
    static let manyRecords = 50_000

    @Test func theDocumentArrivesChunkedAndComplete() throws {
        let live = try Live(records: 1200)
        defer { live.stop() }
        let received = try Self.readToEnd(try live.send("GET", "/v1/users/u42/export"))
        #expect(received.head.hasPrefix("HTTP/1.1 200 "), "\(received.head)")
        #expect(received.head.contains("Transfer-Encoding: chunked") && !received.head.contains("Content-Length"))
        let (data, complete) = received.body
        #expect(complete && !received.reset)
        let inProcess = try live.app.send(.get, "/v1/users/u42/export").body
        #expect(data == inProcess, "\(data.count) bytes against \(inProcess.count)")
        #expect(try WireDecoder.decodeResponse(UserExport.self, from: data).consentRecords.count == 1200)
        try live.waitForSnapshots(0)
    }

    /// PostgreSQL: an export's snapshot holds a connection of the pool that reads and writes
    /// take theirs from, for as long as its client downloads; so at most a quarter of the pool
    /// (at least one) is held by exports at once. One more export is `503` at once, and writes
    /// go on meanwhile.
    @Test(.enabled(if: !TestApp.onSQLite, "the PostgreSQL pool only")) func exportsHoldAtMostAQuarterOfThePostgresPool() throws {
        let app = try TestApp()
        let store = try #require(app.postgresStore)
        #expect(try app.set("camera", #"{"status":"denied"}"#).status == 200)
        #expect(store.maximumSnapshots == max(1, TestApp.postgresPoolSize / 4))
        let held = try (0..<store.maximumSnapshots).map { _ in try store.openSnapshot() }
        let refused = try app.send(.get, "/v1/users/u42/export")
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.text.contains("exports are being read already"), "\(refused.text)")
        #expect(try app.set("camera", #"{"status":"notDetermined"}"#).status == 200)
        held.forEach { $0.close() }
        #expect(store.snapshotsOpen == 0)
        #expect(try app.send(.get, "/v1/users/u42/export").status == 200)
        #expect(store.snapshotsOpen == 0)
    }

    @Test func aHeadRequestGetsTheHeadAloneAndGivesTheSnapshotBack() throws {
        let live = try Live(records: 10)
        defer { live.stop() }
        let received = try Self.readToEnd(try live.send("HEAD", "/v1/users/u42/export"))
        #expect(received.head.hasPrefix("HTTP/1.1 200 "), "\(received.head)")
        #expect(String(decoding: received.bytes, as: UTF8.self).hasSuffix("\r\n\r\n"), "no body")
        try live.waitForSnapshots(0)
    }

    /// The client reads the head, then resets the connection while the stream waits for it to
    /// read on (its receive buffer full): the stream's next send fails and the snapshot goes back.
    @Test func aClientThatLeavesMidExportGivesTheSnapshotBack() throws {
        let live = try Live(records: Self.manyRecords)
        defer { live.stop() }
        let socket = try live.send("GET", "/v1/users/u42/export", receiveBuffer: 4096)
        var head = [UInt8](repeating: 0, count: 512)
        _ = try head.withUnsafeMutableBytes { try socket.read(into: $0.baseAddress!, count: $0.count) }
        #expect(String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 200 "))
        Thread.sleep(forTimeInterval: 0.3)
        #expect(live.app.snapshotConnectionsInUse == 1, "the stream waits for the client, its snapshot open")
        try socket.setAbortOnClose()
        try socket.close()
        try live.waitForSnapshots(0)
    }

    @Test func aClientThatStopsReadingIsDroppedAfterTheWriteTimeoutAndTheSnapshotGoesBack() throws {
        let live = try Live(records: Self.manyRecords) { $0.writeTimeout = .milliseconds(500) }
        defer { live.stop() }
        let socket = try live.send("GET", "/v1/users/u42/export", receiveBuffer: 4096)
        try live.waitForSnapshots(1)
        let started = ContinuousClock.now
        try live.waitForSnapshots(0)
        #expect(ContinuousClock.now - started < .seconds(3))
        let received = try Self.readToEnd(socket)
        #expect(received.head.hasPrefix("HTTP/1.1 200 "))
        let complete = received.body.complete
        #expect(!complete, "dropped, not finished: \(received.bytes.count) bytes")
    }

    /// A client that never stops reading, only slowly (4 KiB every 10 ms, far inside the 30 s
    /// write timeout), is cut at `--export-timeout` (1 s here), counted from the snapshot's
    /// opening: the body ends unterminated and the snapshot goes back, where before the client
    /// kept it for the whole 21 MB document (about a minute at that rate).
    @Test func aClientTooSlowForTheExportTimeoutIsCutAndTheSnapshotGoesBack() throws {
        let live = try Live(records: Self.manyRecords, exportTimeout: .seconds(1))
        defer { live.stop() }
        let started = ContinuousClock.now  // before the request: the timeout starts after it
        let socket = try live.send("GET", "/v1/users/u42/export", receiveBuffer: 4096)
        var received = Received()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now - started < .seconds(20) {
            let count: Int?
            do {
                count = try chunk.withUnsafeMutableBytes { try socket.read(into: $0.baseAddress!, count: $0.count) }
            } catch {
                received.reset = true
                break
            }
            guard let count, count > 0 else { break }
            received.bytes += chunk[0..<count]
            Thread.sleep(forTimeInterval: 0.01)
        }
        let took = ContinuousClock.now - started
        #expect(took >= .seconds(1) && took < .seconds(5), "ended after \(took)")
        #expect(received.head.hasPrefix("HTTP/1.1 200 "), "\(received.head)")
        #expect(!received.body.complete, "cut, not finished: \(received.bytes.count) bytes")
        #expect(received.bytes.count < 10_000_000, "\(received.bytes.count) bytes of about 21 MB")
        try live.waitForSnapshots(0)
    }

    /// A record that does not parse (written behind the store's back) fails the export's read
    /// of its page, after the head and the pages before it were sent.
    @Test func aFailureAfterTheHeadEndsTheBodyWithoutItsLastChunk() throws {
        let live = try Live(records: 50, pageSize: 2)
        defer { live.stop() }
        let corrupt = "UPDATE authorizations SET reason = 'unheard-of', version = 2 WHERE app = 'com.example.app9'"
        if let sqlite = live.app.sqliteStore {
            try sqlite.pool.write { try $0.execute(corrupt) }
        } else {
            try live.app.executeOnPostgres(corrupt)
        }
        let received = try Self.readToEnd(try live.send("GET", "/v1/users/u42/export"))
        #expect(received.head.hasPrefix("HTTP/1.1 200 "), "\(received.head)")
        let (data, complete) = received.body
        #expect(!complete, "no last chunk: the body is unterminated")
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix(#"{"audit":[],"auditEncoding":"#) && text.contains("com.example.app10"), "\(text)")
        #expect(!text.contains("com.example.app9/") && !text.contains(#""exportedAt":"#), "stopped at the page")
        #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(data)) }
        try live.waitForSnapshots(0)
    }
}
