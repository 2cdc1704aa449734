import Dispatch
import Ownership
import Testing

@Suite("A value owned by a queue")
struct QueueOwnedTests {
    @Test("blocks on the owning queue read and change it")
    func onItsQueue() {
        let queue = DispatchQueue(label: "owner")
        let owned = QueueOwned(0, owner: QueueOwner("the test queue", marking: queue))
        for _ in 0..<100 { queue.async { owned.value += 1 } }
        #expect(queue.sync { owned.value } == 100)
    }

    #if DEBUG
    @Test("a touch from another queue stops the process")
    func offItsQueueStops() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let owned = QueueOwned(0, owner: QueueOwner("the test queue", marking: DispatchQueue(label: "owner")))
            owned.value += 1
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("this state is owned by the test queue's queue, but ran elsewhere"), "\(message)")
    }
    #endif
}
