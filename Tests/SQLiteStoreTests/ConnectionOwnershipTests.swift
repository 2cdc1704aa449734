import Foundation
import TestSupport
import TestThreads
import Testing

@testable import SQLiteStore

/// A connection belongs to one thread at a time: the reader pool lends a reader for one
/// `read` body, the writer lends its connection to one block of its queue. In debug builds a
/// connection (or one of its statements) used after its loan ended stops the process instead
/// of racing another thread inside SQLite's `SQLITE_OPEN_NOMUTEX` connection.
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct ConnectionOwnershipTests {
    @Test("reads and writes from many threads stay inside their loans")
    func loansHold() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("loans.sqlite"))
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        onThreads(8) { index in
            for value in 0..<50 {
                do {
                    try pool.write { database in
                        try database.withStatement("INSERT INTO t VALUES (?)") { statement in
                            statement.bind(Int64(index * 1_000 + value), at: 1)
                            try statement.execute()
                        }
                    }
                    _ = try pool.read { database in
                        try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : 0 }
                    }
                } catch {
                    Issue.record("\(error)")
                }
            }
        }
        let count = try pool.read { database in
            try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : 0 }
        }
        #expect(count == 400)
    }

    #if DEBUG
    @Test("a reader used after its read body returned stops the process")
    func readerOutsideItsLoanStops() async throws {
        // The child ends without releasing anything: the directory is made and removed here.
        let parent = try TemporaryDirectory()
        let path = parent.path
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let directory = TemporaryDirectory.existing(path)
            let pool = try DatabasePool(path: directory.file("escaped-reader.sqlite"))
            try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
            let escaped = try pool.read { $0 }
            _ = try escaped.withStatement("SELECT count(*) FROM t") { try $0.step() }
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("a SQLite connection is used outside a loan or on another thread"), "\(message)")
    }

    @Test("a statement of a reader, stepped after the read body returned, stops the process")
    func statementOutsideItsLoanStops() async throws {
        // The child ends without releasing anything: the directory is made and removed here.
        let parent = try TemporaryDirectory()
        let path = parent.path
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let directory = TemporaryDirectory.existing(path)
            let pool = try DatabasePool(path: directory.file("escaped-statement.sqlite"))
            try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
            let statement = try pool.read { try $0.prepare("SELECT count(*) FROM t") }
            _ = try statement.step()
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("a SQLite connection is used outside a loan or on another thread"), "\(message)")
    }

    @Test("the writer's connection used outside its queue stops the process")
    func writerOutsideItsQueueStops() async throws {
        // The child ends without releasing anything: the directory is made and removed here.
        let parent = try TemporaryDirectory()
        let path = parent.path
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let directory = TemporaryDirectory.existing(path)
            let pool = try DatabasePool(path: directory.file("escaped-writer.sqlite"))
            let escaped = try pool.write { $0 }
            try escaped.execute("CREATE TABLE t (x INTEGER)")
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("a SQLite connection is used outside a loan or on another thread"), "\(message)")
    }
    #endif
}
