import Foundation
internal import Ownership

/// A small pool of easy handles guarded by a lock: a call takes a handle for itself (never
/// shared across threads at once, https://curl.se/libcurl/c/threadsafe.html), and gives it
/// back afterwards with its kept-alive connection. At most `maxIdle` handles wait idle; more
/// are created on demand when many calls run at once, and cleaned up when returned.
/// `Sendable` as checked by the compiler: the idle handles live in a ``Guarded`` cell, and a
/// handle is lent to one call at a time (``EasyHandle/use``; checked in debug builds).
final class HandlePool: Sendable {
    private let idle = Guarded([EasyHandle]())
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
        let reused = idle.withLock { $0.state.popLast() }
        let handle: EasyHandle
        if let reused { handle = reused } else { handle = try EasyHandle(settings: settings) }
        handle.use.enter()
        return handle
    }

    private func checkin(_ handle: EasyHandle) {
        handle.use.leave()
        idle.withLock { access in
            if access.state.count < maxIdle { access.state.append(handle) }
        }
    }
}
