import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

/// Pooled readers reuse their read snapshot between commits of this process; a commit made by
/// another connection (another process: the `keys` subcommand on a live file) must still become
/// visible within `ReaderPool.maximumSnapshotAge`.
@Suite struct ReaderSnapshotTests {
    @Test func anotherConnectionsCommitBecomesVisibleWithinTheSnapshotAge() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("snapshots.sqlite")
        let pool = try DatabasePool(path: path)
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        func count() throws -> Int {
            try pool.read { database in
                try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 }
            }
        }
        #expect(try count() == 0)  // the reader now holds a snapshot

        let other = try Database(path: path, mode: .readWrite)
        try other.execute("INSERT INTO t VALUES (1)")

        let deadline = Date().addingTimeInterval(Double(ReaderPool.maximumSnapshotAge) / 1e9 + 1)
        var seen = try count()
        while seen == 0 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            seen = try count()
        }
        #expect(seen == 1)
    }

    /// With every reader checked out, a read waits for one to come back and then runs.
    @Test func aReadWaitsForAReaderWhenAllAreOut() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.file("busy.sqlite"), configuration: DatabaseConfiguration(maximumReaderCount: 1))
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7)") }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? pool.read { _ in
                holding.signal()
                release.wait()  // keep the only reader out
            }
        }
        holding.wait()
        let result = LockedBox<Int?>(nil)
        DispatchQueue.global().async {
            let value = try? pool.read { database in
                try database.withStatement("SELECT x FROM t") { try $0.step() ? $0.int(at: 0) : nil }
            }
            result.set(value ?? nil)
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 0.2) == .timedOut)  // waiting for the reader
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(result.get() == 7)
    }
}

/// A value shared with a dispatched closure in a test.
private final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func get() -> Value { lock.withLock { value } }
}
