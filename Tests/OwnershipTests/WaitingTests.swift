import Dispatch
import Ownership
import Testing

/// A queue whose owner forbids waiting (an event loop's) stops a debug build at the first call
/// that would block its thread; any other queue or thread may wait.
@Suite("Where a thread may wait")
struct WaitingTests {
    @Test("queues that allow waiting, and threads on no marked queue, may wait")
    func elsewhereWaitsAreAllowed() {
        QueueOwner.assertMayWait("a wait on the test's own thread")
        let queue = DispatchQueue(label: "writer")
        _ = QueueOwner("the test writer", marking: queue)
        queue.sync { QueueOwner.assertMayWait("a wait on the writer's queue") }
    }

    #if DEBUG
    @Test("a wait on a queue that forbids waiting stops the process")
    func aWaitOnAnEventLoopStops() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = DispatchQueue(label: "loop")
            _ = QueueOwner("the test loop", marking: queue, forbidsWaiting: true)
            queue.sync { QueueOwner.assertMayWait("a test wait") }
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("a test wait must not wait on the test loop's queue"), "\(message)")
    }
    #endif
}
