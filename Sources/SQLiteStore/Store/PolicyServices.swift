import Synchronization

/// The services that may have policies: a superset of `SELECT DISTINCT service FROM policies`,
/// kept in memory so that the hot-path read of an authorization skips the policy query for a
/// service no policy names (most of them, most of the time).
///
/// It is loaded from the file when the store opens and only grows while it serves: saving a
/// policy adds its service inside the write, before the commit, so no reader can see the new
/// row while the set still lacks its service; a rolled-back save or a deleted policy leaves an
/// extra service, which only costs a query that finds nothing. Policies are written only through
/// this process's store (no subcommand writes them), so no other writer can add a service
/// behind its back.
final class PolicyServices: Sendable {
    private let services: Mutex<Set<String>>
    /// `services.count`, readable without the lock: zero is the common case.
    private let count: Atomic<Int>

    init(_ initial: Set<String>) {
        services = Mutex(initial)
        count = Atomic(initial.count)
    }

    /// Whether a policy may name `service`; false means none does.
    func mayHavePolicies(_ service: String) -> Bool {
        if count.load(ordering: .acquiring) == 0 { return false }
        return services.withLock { $0.contains(service) }
    }

    /// Records that a policy names `service`; call before the write that stores it commits.
    func add(_ service: String) {
        services.withLock { services in
            if services.insert(service).inserted {
                count.store(services.count, ordering: .releasing)
            }
        }
    }
}
