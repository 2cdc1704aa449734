import Foundation

/// A fresh directory under the system temporary directory, removed when released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("SQLiteStoreTests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A file path inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    deinit {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            // Leaving a temporary directory behind does not affect the test result.
        }
    }
}

/// Runs `body(index)` on `count` separate threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

/// A thread-safe list for collecting results from threads.
final class Collected<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []

    func append(_ element: Element) {
        lock.lock()
        storage.append(element)
        lock.unlock()
    }

    var elements: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
