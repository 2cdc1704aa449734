import PermissionDomain
import Synchronization

/// The audit chain's last entry as the store's writer last wrote or read it, so an append
/// reads nothing; nil when unknown (then the append reads it from the file).
///
/// The writer (``DatabaseWriter/track(_:)``) puts it back when it rolls a body back, and
/// forgets it when a whole transaction is lost, a commit fails, a body runs outside a
/// transaction (migrations) or another process commits. Used on the writer queue only; the
/// mutex makes it `Sendable` without an unchecked promise.
final class AuditChainTipCache: SavepointState {
    private struct State {
        var tip: AuditChainTip?
        var beforeBody: AuditChainTip?
    }

    private let state = Mutex(State())

    /// The last entry, nil when unknown.
    var tip: AuditChainTip? {
        get { state.withLock { $0.tip } }
        set { state.withLock { $0.tip = newValue } }
    }

    func bodyWillRun() {
        state.withLock { $0.beforeBody = $0.tip }
    }

    func bodyDidRollBack() {
        state.withLock { $0.tip = $0.beforeBody }
    }

    func forget() {
        state.withLock { $0 = State() }
    }
}
