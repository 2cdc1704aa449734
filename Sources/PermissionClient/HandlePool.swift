import Foundation

/// A small pool of easy handles guarded by a lock: a call takes a handle for itself (never
/// shared across threads at once, https://curl.se/libcurl/c/threadsafe.html), and gives it
/// back afterwards with its kept-alive connection. At most `maxIdle` handles wait idle; more
/// are created on demand when many calls run at once, and cleaned up when returned.
final class HandlePool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [EasyHandle] = []
    private let settings: EasyHandle.Settings
    private let maxIdle: Int

    init(settings: EasyHandle.Settings, maxIdle: Int) {
        self.settings = settings
        self.maxIdle = max(0, maxIdle)
    }

    /// Runs `body` with a handle of its own.
    /// - Throws: `.transport` when a new handle cannot be created.
    func withHandle<R>(_ body: (EasyHandle) -> R) throws(PermissionClientError) -> R {
        let handle = try checkout()
        let result = body(handle)
        checkin(handle)
        return result
    }

    private func checkout() throws(PermissionClientError) -> EasyHandle {
        lock.lock()
        let reused = idle.popLast()
        lock.unlock()
        if let reused { return reused }
        return try EasyHandle(settings: settings)
    }

    private func checkin(_ handle: EasyHandle) {
        lock.lock()
        defer { lock.unlock() }
        if idle.count < maxIdle { idle.append(handle) }
    }
}
