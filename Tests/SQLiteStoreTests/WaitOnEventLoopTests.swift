import Dispatch
import Foundation
import Ownership
import TestSupport
import TestThreads
import Testing

@testable import SQLiteStore

/// A durable write blocks its thread until its batch commits: in debug builds it stops the
/// process when called on a queue that forbids waiting (an event loop's, see
/// ``QueueOwner/assertMayWait(_:file:line:)``). Reads, which the event loops serve inline,
/// may run there.
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct WaitOnEventLoopTests {
    @Test func aReadMayRunWhereWaitsAreForbidden() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("read-on-loop.sqlite"))
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        let loop = DispatchQueue(label: "loop")
        _ = QueueOwner("a test loop", marking: loop, forbidsWaiting: true)
        let count = try loop.sync {
            try pool.read { database in
                try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 }
            }
        }
        #expect(count == 0)
    }

    #if DEBUG
    @Test("a durable write where waits are forbidden stops the process")
    func aWriteStops() async throws {
        // The child ends without releasing anything: the directory is made and removed here.
        let parent = try TemporaryDirectory()
        let path = parent.path
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let directory = TemporaryDirectory.existing(path)
            let pool = try DatabasePool(path: directory.file("write-on-loop.sqlite"))
            let loop = DispatchQueue(label: "loop")
            _ = QueueOwner("a test loop", marking: loop, forbidsWaiting: true)
            try loop.sync { try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") } }
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("a durable write waiting for its commit must not wait on a test loop's queue"), "\(message)")
    }
    #endif
}
