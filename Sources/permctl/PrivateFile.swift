import Foundation
import PermissionClient
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A file of personal data written so that no one else can read it at any moment, and that is
/// there under its name only once complete: made `0600` by `open(2)` itself under a temporary
/// name beside `path` (`FileManager.createFile` sets the mode only after writing, so the file
/// is briefly readable by others under the umask's mode), written as the bytes come, then
/// synced and renamed over `path` by `commit()`; `discard()` (or release) removes it instead.
/// While it is open, SIGINT, SIGTERM and SIGHUP remove it before they end the process as their
/// default action does, so that Ctrl-C leaves no partial copy of someone's personal data.
/// One at a time: a second while one is open is a programming error (a precondition).
final class PrivateFile {
    let path: String
    private let temporary: String
    private var descriptor: Int32

    /// Creates the temporary file beside `path`.
    /// - Returns: `nil` (with `errno` set) when it cannot be created.
    /// The temporary name is `path.partial-PID-RANDOM`: a file left by a run that was killed
    /// (SIGKILL, out of memory) never blocks a later one, even one with the same process id (a
    /// container's permctl is always process 1).
    init?(replacing path: String) {
        self.path = path
        var candidate = ""
        var opened: Int32 = -1
        for _ in 0..<8 {
            candidate = path + ".partial-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
            // Armed before the file exists: a signal in between finds nothing to remove.
            Self.arm(candidate)
            opened = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if opened >= 0 { break }
            let error = errno
            Self.disarm()
            errno = error
            if error != EEXIST { break }
        }
        temporary = candidate
        descriptor = opened
        guard opened >= 0 else { return nil }
    }

    deinit { discard() }

    /// Appends `bytes`.
    /// - Returns: `nil`, or why they could not be written (the file is then still to discard).
    func write(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard descriptor >= 0 else { return "the file is closed" }
        return PermissionClient.writeAll(bytes, to: descriptor).map { "cannot write \(path): \($0)" }
    }

    /// Syncs the file and renames it over `path`.
    /// - Returns: `nil`, or why not (then nothing is left behind).
    func commit() -> String? {
        guard descriptor >= 0 else { return "the file is closed" }
        let synced = fsync(descriptor) == 0
        let failure = synced ? nil : String(cString: strerror(errno))
        close(descriptor)
        descriptor = -1
        guard synced else {
            unlink(temporary)
            return "cannot write \(path): " + (failure ?? "fsync failed")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            Self.disarm()
            return "cannot rename the written file to \(path): \(reason)"
        }
        Self.disarm()  // after the rename: a signal in between removes a name that is gone
        return nil
    }

    /// Closes and removes the temporary file; nothing is left behind. Idempotent.
    func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporary)
        Self.disarm()
    }

    // MARK: Signals

    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// The address of the temporary file's name a signal removes (a C string, never freed: a
    /// handler may be reading it), 0 for none.
    private static let pending = Atomic<UInt>(0)

    private static func arm(_ temporary: String) {
        let name = UInt(bitPattern: strdup(temporary))
        let (exchanged, _) = pending.compareExchange(expected: 0, desired: name, ordering: .sequentiallyConsistent)
        precondition(exchanged, "one PrivateFile at a time")
        for number in signals { signal(number, removePendingAndEnd) }
    }

    private static func disarm() {
        for number in signals { signal(number, SIG_DFL) }
        pending.store(0, ordering: .sequentiallyConsistent)
    }

    /// The handler: only async-signal-safe calls (`unlink`, `signal`, `raise`).
    fileprivate static func removePending(then number: Int32) {
        if let path = UnsafePointer<CChar>(bitPattern: pending.load(ordering: .sequentiallyConsistent)) { unlink(path) }
        signal(number, SIG_DFL)
        raise(number)
    }
}

/// `PrivateFile`'s signal handler, a C function.
private func removePendingAndEnd(_ number: Int32) {
    PrivateFile.removePending(then: number)
}
