#if canImport(Glibc)
import Glibc
#endif

/// Whether a server is serving a database file: `permission-server serve` holds an exclusive
/// `flock` on its file for as long as it runs, seen through any mount of the file on the host.
enum ServeLockProbe {
    /// Whether another process holds the exclusive lock on the file open at `descriptor`. The
    /// shared lock asked for here is let go when the descriptor closes; that drops no `fcntl`
    /// lock only if this process has no SQLite connection to the file, so call it on a file
    /// this process does not have open in SQLite.
    static func isServed(_ descriptor: Int32) -> Bool {
        flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }
}
