#if canImport(Glibc)
internal import Glibc
#endif

/// A failed socket system call: the call's name, `errno` and its `strerror` text.
/// See FlyingFox `SocketError.swift`; thrown by every `Socket` method that wraps a syscall.
public struct SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call or step that failed, e.g. "bind".
    public var operation: String
    /// The `errno` value at the time of failure (0 when the failure is not a syscall's).
    public var code: Int32
    /// The `strerror(code)` text, or a short reason when `code` is 0.
    public var message: String

    public init(operation: String, code: Int32, message: String) {
        self.operation = operation
        self.code = code
        self.message = message
    }

    /// The error for the syscall that just failed, reading `errno` now.
    static func lastError(_ operation: String) -> SocketError {
        let code = errno
        return SocketError(operation: operation, code: code, message: String(cString: strerror(code)))
    }

    public var description: String { "\(operation) failed: \(message) (errno \(code))" }
}
