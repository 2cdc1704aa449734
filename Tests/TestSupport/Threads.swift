import Foundation
import Synchronization

/// Runs `body(index)` on `count` threads at once and waits for all of them (two minutes at
/// most, then the test fails rather than hangs).
package func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let finished = DispatchSemaphore(value: 0)
    for index in 0..<count {
        Thread {
            body(index)
            finished.signal()
        }.start()
    }
    let deadline = DispatchTime.now() + 120
    let all = (0..<count).allSatisfy { _ in finished.wait(timeout: deadline) == .success }
    precondition(all, "threads still running after two minutes")
}

/// Values appended from several threads.
package final class Collected<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    package init() {}

    package func append(_ element: Element) { storage.withLock { $0.append(element) } }

    package var elements: [Element] { storage.withLock { $0 } }
}
