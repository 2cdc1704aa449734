import Foundation

/// A fresh directory under the system temporary directory, removed when released.
package final class TemporaryDirectory: Sendable {
    package let path: String
    /// Whether releasing this value removes the directory (not for ``existing(_:)``).
    private let owned: Bool

    package init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("permission-tests-\(UUID().uuidString)").path
        owned = true
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    private init(existing path: String) {
        self.path = path
        owned = false
    }

    /// The directory another value made, in an exit test's parent process: the child, which
    /// ends without releasing anything, uses it, and the parent's value removes it.
    package static func existing(_ path: String) -> TemporaryDirectory {
        TemporaryDirectory(existing: path)
    }

    /// A file path inside the directory.
    package func file(_ name: String) -> String { path + "/" + name }

    deinit {
        guard owned else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            // Leaving a temporary directory behind does not affect the test result.
        }
    }
}
