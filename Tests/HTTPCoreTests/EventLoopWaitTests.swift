import Foundation
import HTTPCore
internal import Ownership
import TestThreads
import Testing

/// An event loop's queue forbids waiting (``QueueOwner/forbidsWaiting``): in debug builds a
/// handler run inline on the loop that blocks its thread (what the stores' waits check with
/// `QueueOwner.assertMayWait`) stops the process, where it would otherwise stall every
/// connection of the loop. The same handler on a worker thread answers.
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct EventLoopWaitTests {
    /// A route whose handler does what a blocking call checks before it blocks.
    private static func waitingRoute(_ execution: HTTPExecution) -> (inout Router) -> Void {
        { router in
            router.get("/wait", execution: execution) { _, _ in
                QueueOwner.assertMayWait("the test handler's wait")
                return textResponse("waited")
            }
        }
    }

    @Test func aHandlerOnAWorkerMayWait() throws {
        let live = try LiveServer(routes: Self.waitingRoute(.worker))
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/wait"))
        #expect(try client.readResponse().text == "waited")
    }

    #if DEBUG
    @Test func aHandlerThatWaitsOnTheEventLoopStopsTheProcess() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let live = try LiveServer(routes: Self.waitingRoute(.eventLoop))
            let client = try live.client()
            try client.send(rawGet("/wait"))
            _ = try? client.readResponse()  // the server's process stops before it answers
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("the test handler's wait must not wait on event loop"), "\(message)")
    }
    #endif
}
