import Foundation
internal import Ownership

/// A small pool of easy handles guarded by a lock: a call takes a handle for itself (never
/// shared across threads at once, https://curl.se/libcurl/c/threadsafe.html), and gives it
/// back afterwards with its kept-alive connection. At most `maxIdle` handles wait idle; more
/// are created on demand when many calls run at once, and cleaned up when returned. A call
/// that must go on a fresh connection gets a new handle, and the idle one it would have taken
/// is cleaned up first, closing its connection: a handle's cached connection would otherwise
/// stay open beside the fresh one until the call ends, and a burst of such calls on handles
/// that all keep one would hold twice the connections.
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
    /// - Parameter fresh: whether the call goes on a fresh connection: the handle is a new one,
    ///   with no connection kept.
    /// - Throws: `.transport` when a new handle cannot be created.
    func withHandle<R>(fresh: Bool = false, _ body: (EasyHandle) -> R) throws(PermissionClientError) -> R {
        let handle = try checkout(fresh: fresh)
        let result = body(handle)
        checkin(handle)
        return result
    }

    private func checkout(fresh: Bool) throws(PermissionClientError) -> EasyHandle {
        var reused = idle.withLock { $0.state.popLast() }
        if fresh { reused = nil }  // released here: its connection is closed before the new one opens
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
