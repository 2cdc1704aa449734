import Foundation
import PermissionDomain
import PostgresStore
import PostgresTestServer
import StoreTestSupport
import Testing

/// A measurement, not a test: with `POSTGRES_MEASURE_WRITES=1`, prints the writes per second
/// that 16 threads get through one store on the test PostgreSQL (each write saves an app and
/// appends an audit entry); with `POSTGRES_MEASURE_WRITES=fsync`, on a server of its own with
/// `fsync` turned back on (the test server runs without it), so that each commit waits for the
/// WAL flush as in production. It asserts nothing about time.
@Suite struct PostgresWriteThroughputMeasurement {
    private static let mode = ProcessInfo.processInfo.environment["POSTGRES_MEASURE_WRITES"]

    @Test(.enabled(if: mode == "1" || mode == "fsync"))
    func sixteenWritersOnOneStore() throws {
        var own: PostgresServer?
        defer { own?.stop() }
        let database: String
        if Self.mode == "fsync" {
            let server = try PostgresServer.start(durable: true)
            own = server
            database = server.connectionString()
            let setting = try PostgresConnection(database).query(PreparedStatement("SHOW fsync"))[0].string(at: 0)
            print("postgres writes: fsync = \(setting)")
        } else {
            database = try PostgresServer.shared.get().freshDatabase()
        }
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        let threads = 16
        let perThread = 200
        let started = Date()
        let group = DispatchGroup()
        let failures = Failures()
        for thread in 0..<threads {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    for index in 0..<perThread {
                        let app = try App(
                            id: try AppID("com.example.t\(thread).a\(index)"), name: "app", purposeStrings: [:],
                            updatedAt: Date(millisecondsSince1970: 1_795_000_000_000))
                        let entry = AuditEntry(
                            at: app.updatedAt, actor: Actor(keyId: nil, role: "admin"), action: AuditAction("app.saved"),
                            app: app.id)
                        _ = try store.write { writer in
                            try writer.save(app)
                            return try writer.append(entry)
                        }
                    }
                } catch {
                    failures.add(error)
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 600) == .success)
        let seconds = Date().timeIntervalSince(started)
        #expect(failures.all.isEmpty, "\(failures.all)")
        let writes = threads * perThread
        print(
            String(
                format: "postgres writes: %d writes by %d threads in %.2f s = %.0f writes/s", writes, threads, seconds,
                Double(writes) / seconds))
        let statistics = store.writeStatistics
        print("postgres writes: \(statistics.commits) commits, largest batch \(statistics.largestBatch)")
        #expect(try store.read { try $0.lastAuditSeq() } == Int64(writes))
    }
}
