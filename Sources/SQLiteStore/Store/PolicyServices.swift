import Synchronization

/// The services that may have policies: a superset of `SELECT DISTINCT service FROM policies`,
/// kept in memory so that the hot-path read of an authorization skips the policy query for a
/// service no policy names (most of them, most of the time).
///
/// Saving a policy adds its service inside the write, before the commit, so no reader can see
/// the new row while the set still lacks its service; a rolled-back save or a deleted policy
/// leaves an extra service, which only costs a query that finds nothing. Whatever this process
/// did not write (another server on the same file, the `sqlite3` shell, a restore, a failed
/// commit, a migration) is picked up by ``reload(from:)``, which the writer runs on the signal
/// that empties the read cache (``StoreCommitObserver``): another process's policy is honoured
/// within about 100 ms. Until the first load, and after a load that failed, every service may
/// have policies.
final class PolicyServices: Sendable {
    private let services: Mutex<Set<String>>
    /// `services.count`, readable without the lock: zero is the common case; -1 while unknown.
    private let count: Atomic<Int>

    /// An unknown set: every service may have policies until ``reload(from:)``.
    init() {
        services = Mutex([])
        count = Atomic(-1)
    }

    /// A known set.
    init(_ initial: Set<String>) {
        services = Mutex(initial)
        count = Atomic(initial.count)
    }

    /// Whether a policy may name `service`; false means none does.
    func mayHavePolicies(_ service: String) -> Bool {
        switch count.load(ordering: .acquiring) {
        case 0: return false
        case ..<0: return true
        default: return services.withLock { $0.contains(service) }
        }
    }

    /// Records that a policy names `service`; call before the write that stores it commits.
    func add(_ service: String) {
        services.withLock { services in
            if services.insert(service).inserted, count.load(ordering: .relaxed) >= 0 {
                count.store(services.count, ordering: .releasing)
            }
        }
    }

    /// Replaces the set with the services the file's policies name, read on `database`. On the
    /// writer queue only, between transactions (so no save is in flight); a failed read leaves
    /// the set unknown (every service queried) until the next reload.
    func reload(from database: Database) {
        let loaded: Set<String>?
        do {
            loaded = try StoreSession(database: database).policyServiceNames()
        } catch {
            loaded = nil
        }
        services.withLock { services in
            services = loaded ?? []
            count.store(loaded == nil ? -1 : services.count, ordering: .releasing)
        }
    }
}
