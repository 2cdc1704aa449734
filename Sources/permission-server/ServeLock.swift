import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One `serve` per database file. The process that serves a file keeps state beside it that
/// another process's writes would contradict: the audit chain's tip, the read cache, the
/// policy-service set, the change feed's wake-ups. A second `serve` on the same file is refused
/// at start with a sentence naming the file, rather than supported halfway. The subcommands
/// (`keys`, `backup`, `audit`, `migrate`) still open the file beside a running server; their
/// writes reach it through SQLite's `data_version` (docs/operations.md, "One server per database file").
///
/// The lock is `flock(2)`, exclusive, on the database file itself, held by an open descriptor
/// for the life of the process (the kernel drops it when the process exits, however it
/// exits). `flock` locks are independent of the POSIX record locks SQLite takes on the same
/// file, and the descriptor is only closed after every SQLite connection is (``release()``), so
/// closing it cannot drop SQLite's locks (https://www.sqlite.org/howtocorrupt.html, 2.2).
final class ServeLock {
    /// Why the lock cannot be taken.
    enum Failure: Error, CustomStringConvertible {
        /// Another process holds it.
        case held(path: String)
        /// The file cannot be created or opened.
        case cannotOpen(path: String, errno: Int32)

        /// Whether another process holds the lock (worth retrying later).
        var isHeld: Bool {
            if case .held = self { return true }
            return false
        }

        var description: String {
            switch self {
            case .held(let path):
                "another permission-server is already serving \(path); one server per database file (stop it first, or give this one its own --database)"
            case .cannotOpen(let path, let code):
                "cannot open \(path) to lock it: \(String(cString: strerror(code)))"
            }
        }
    }

    private var descriptor: Int32

    /// Takes the lock on `path`, creating the file (mode 0600, SQLite fills it in) and its
    /// directory (0700) when missing.
    /// - Throws: ``Failure``; never waits.
    init(path: String) throws(Failure) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            unsupported = nil
        } else if errno == EWOULDBLOCK {
            close(fd)
            throw .held(path: path)
        } else {
            // A file system without flock (ENOLCK, EOPNOTSUPP): serve, but say that nothing
            // stops a second server here.
            unsupported = String(cString: strerror(errno))
        }
        descriptor = fd
    }

    /// Why the file could not be locked although no other server holds it (the file system
    /// offers no `flock`), or nil when it is locked.
    let unsupported: String?

    /// Gives the lock up. Call it only after the store is closed (closing a descriptor of the
    /// file drops every POSIX lock the process holds on it, SQLite's too); the process's exit
    /// releases it as well. No `deinit` does it, so that no early release can happen by accident.
    func release() {
        precondition(descriptor >= 0, "the serve lock is released once")
        close(descriptor)
        descriptor = -1
    }
}
