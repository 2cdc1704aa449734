#if canImport(Glibc)
internal import Glibc
#endif

/// The route template of the request being answered on this thread, left by the router for
/// the metrics middleware that runs outside it (a `RequestContext` is a value, so the router's
/// copy never reaches the outer middleware). One box per thread, read and written without locks.
enum RouteMarker {
    private final class Box {
        var template: String?
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<Box>.fromOpaque(pointer).release() }
        }
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    private static var box: Box {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Box>.fromOpaque(pointer).takeUnretainedValue()
        }
        let box = Box()
        pthread_setspecific(key, Unmanaged.passRetained(box).toOpaque())
        return box
    }

    /// Records the matched template for this thread's current request.
    static func set(_ template: String) {
        box.template = template
    }

    /// Clears the mark before a request runs.
    static func clear() {
        box.template = nil
    }

    /// The template the router marked since the last `clear()`, nil when no route matched.
    static func current() -> String? {
        box.template
    }
}
