import Foundation
import Logging

/// The process's open-file limit (`RLIMIT_NOFILE`), raised at start from its soft value to its
/// hard one: containers commonly start with a soft limit of 1,024, below what
/// `--max-connections` (1,024 by default) plus the database's files, readers, event loops and
/// listeners need, and a server out of descriptors can accept no one (it then closes the
/// connection idle the longest, as at the connection cap). A hard limit still below the need is
/// logged, with what to do.
enum DescriptorLimit {
    /// Descriptors the server needs beside its connections: the database file, its `-wal` and
    /// `-shm`, the readers and snapshot connections (or the PostgreSQL pool), event loops and
    /// their wake-ups, listeners, logs.
    static let reserve = 256

    /// The soft and hard limits, nil when they cannot be read.
    static func current() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one, and warns when it stays below `connections` +
    /// ``reserve``.
    static func raise(for connections: Int, logger: Logger) {
        guard let (soft, hard) = current() else {
            logger.warning("cannot read the open-file limit (RLIMIT_NOFILE)")
            return
        }
        let needed = UInt64(connections + reserve)
        var inEffect = soft
        if soft < hard {
            var limit = rlimit(rlim_cur: rlim_t(hard), rlim_max: rlim_t(hard))
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
                inEffect = hard
                logger.info(
                    "raised the open-file limit to its hard limit", metadata: ["from": "\(soft)", "to": "\(hard)"])
            } else {
                logger.warning(
                    "cannot raise the open-file limit", metadata: ["soft": "\(soft)", "hard": "\(hard)", "errno": "\(errno)"])
            }
        }
        if inEffect < needed {
            logger.warning(
                "the open-file limit is below what --max-connections needs: once descriptors run out, the connection idle the longest is closed for each new one; raise the limit (ulimit -n, the container's nofile, LimitNOFILE) or lower --max-connections",
                metadata: ["limit": "\(inEffect)", "needed": "\(needed)", "max-connections": "\(connections)"])
        }
    }
}
