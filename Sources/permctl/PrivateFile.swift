import Foundation
import PermissionClient

#if canImport(Glibc)
import Glibc
#endif

/// A file of personal data written so that no one else can read it at any moment, and that is
/// there under its name only once complete: made `0600` by `open(2)` itself under a temporary
/// name beside `path` (`FileManager.createFile` sets the mode only after writing, so the file
/// is briefly readable by others under the umask's mode), written as the bytes come, then
/// synced and renamed over `path` by `commit()`; `discard()` (or release) removes it instead.
final class PrivateFile {
    let path: String
    private let temporary: String
    private var descriptor: Int32

    /// Creates the temporary file beside `path`.
    /// - Returns: `nil` (with `errno` set) when it cannot be created.
    init?(replacing path: String) {
        self.path = path
        temporary = path + ".partial-\(getpid())"
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
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
            return "cannot rename the written file to \(path): \(reason)"
        }
        return nil
    }

    /// Closes and removes the temporary file; nothing is left behind. Idempotent.
    func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporary)
    }
}
