import Foundation
import PermissionDomain
import StoreTestSupport
import Synchronization
import TestSupport
import TestThreads
import Testing

@testable import SQLiteStore

/// The reader pool never loses a connection, and a read never waits without end: a `BEGIN`
/// that fails returns its reader to the pool, and with every reader checked out a read fails
/// busy once the busy timeout has passed.
@Suite(.timeLimit(.minutes(1)), .blocksItsThread) struct ReaderPoolFailureTests {
    static let injected = SQLiteError(code: 10, message: "injected BEGIN failure", sql: "BEGIN DEFERRED")  // SQLITE_IOERR

    /// Runs `body` on another thread and waits for it at most `seconds`; nil when it did not
    /// finish (it is then left running).
    static func finishing<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () -> T) -> T? {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }

    static func count(_ pool: DatabasePool) throws -> Int {
        try pool.read { database in try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 } }
    }

    @Test func aFailedBeginGivesTheReaderBack() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.file("begin.sqlite"), configuration: DatabaseConfiguration(maximumReaderCount: 2))
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)") }
        pool.readers.failNextBegins(10, with: Self.injected)
        // Twelve reads on two readers: the ten that fail to begin must each give theirs back.
        let outcomes = Self.finishing(within: 20) { () -> [String] in
            (0..<12).map { _ in
                do {
                    return "ok \(try Self.count(pool))"
                } catch let error as SQLiteError {
                    return error == Self.injected ? "injected" : "\(error)"
                } catch {
                    return "\(error)"
                }
            }
        }
        #expect(outcomes == Array(repeating: "injected", count: 10) + ["ok 1", "ok 1"], "a read hung: a reader was lost")
        #expect(pool.readers.connectionCount <= 2)
    }

    @Test func aReadWithEveryReaderOutFailsBusyWithinTheBusyTimeout() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.file("out.sqlite"),
            configuration: DatabaseConfiguration(busyTimeoutMilliseconds: 300, maximumReaderCount: 1))
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let returned = DispatchSemaphore(value: 0)
        Thread {
            _ = try? pool.read { _ in
                holding.signal()
                release.wait()  // keep the only reader out
            }
            returned.signal()
        }.start()
        defer { release.signal() }
        #expect(holding.wait(timeout: .now() + 10) == .success)
        let started = Date()
        let outcome = Self.finishing(within: 10) { () -> String in
            do {
                return "ok \(try Self.count(pool))"
            } catch let error as SQLiteError {
                return error.isBusy ? "busy" : "\(error)"
            } catch {
                return "\(error)"
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        #expect(outcome == "busy", "the read waited for the reader without a bound")
        #expect(elapsed >= 0.25 && elapsed < 5, "\(elapsed) s")
        release.signal()
        // The reader that comes back serves the next read, once its read has returned.
        #expect(returned.wait(timeout: .now() + 10) == .success)
        #expect(Self.finishing(within: 10) { (try? Self.count(pool)) ?? -1 } == 0)
    }

    @Test func theStoreReportsABusyReadAsUnavailable() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLitePermissionStore.open(
            path: directory.file("store.sqlite"),
            configuration: DatabaseConfiguration(busyTimeoutMilliseconds: 200, maximumReaderCount: 1), keyring: .forTests)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread {
            _ = try? store.read { _ in
                holding.signal()
                release.wait()
            }
        }.start()
        defer { release.signal() }
        #expect(holding.wait(timeout: .now() + 10) == .success)
        let outcome = Self.finishing(within: 10) { () -> String in
            do {
                _ = try store.read { try $0.lastAuditSeq() }
                return "ok"
            } catch let error as PermissionError {
                if case .unavailable = error { return "unavailable" }
                return "\(error)"
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome == "unavailable")
    }
}
