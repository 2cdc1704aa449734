import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file of personal data written so that no one else can read it at any moment: made `0600`
/// by `open(2)` itself under a temporary name beside `path`, written, synced, and renamed over
/// `path` (`FileManager.createFile` sets the mode only after writing, so the file is briefly
/// readable by others under the umask's mode).
enum PrivateFile {
    /// Writes `bytes` to `path` as described; false (nothing left behind) when it cannot.
    static func write(_ bytes: [UInt8], to path: String) -> Bool {
        let temporary = path + ".partial-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        var written = 0
        let wrote = bytes.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let result = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += result
            }
            return true
        }
        let synced = wrote && fsync(descriptor) == 0
        close(descriptor)
        guard synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
