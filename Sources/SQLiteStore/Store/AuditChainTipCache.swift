import PermissionDomain
import Synchronization

/// The audit chain's last entry as the store's writer last wrote or read it, so an append
/// reads nothing; nil when unknown (then the append reads it from the file).
///
/// The writer (``DatabaseWriter/track(_:)``) puts it back when it rolls a body back, and
/// forgets it when a whole transaction is lost, a commit fails, a body runs outside a
/// transaction (migrations) or another process commits. Used on the writer queue only; the
/// mutex makes it `Sendable` without an unchecked promise.
///
/// When another process commits, the entry it remembers is looked up first: the log is append
/// only (its triggers refuse `UPDATE` and `DELETE`), so an entry this server wrote or read that
/// is gone or holds another hash means the file was changed around the triggers (the newest
/// entries deleted and their seqs about to be used again, or the chain rewritten), or a restore
/// was made under a running server. The server is the one witness of that moment, so it is
/// counted (``rewrites``) and reported (``onRewrite``) before the tip is forgotten.
final class AuditChainTipCache: SavepointState {
    private struct State {
        var tip: AuditChainTip?
        var beforeBody: AuditChainTip?
        /// The tip as of the writer's last commit: in the file unless someone changed it since.
        var committed: AuditChainTip?
        var rewrites: UInt64 = 0
        var onRewrite: (@Sendable (AuditChainRewrite) -> Void)?
    }

    private let state = Mutex(State())

    /// How many times an entry this writer knew was found gone or changed.
    var rewrites: UInt64 { state.withLock { $0.rewrites } }

    /// Called (on the writer's queue) each time an entry this writer knew is found gone or
    /// changed; set once, before writes begin.
    var onRewrite: (@Sendable (AuditChainRewrite) -> Void)? {
        get { state.withLock { $0.onRewrite } }
        set { state.withLock { $0.onRewrite = newValue } }
    }

    func otherProcessCommitted(_ database: Database) {
        defer { forget() }
        // The last commit's tip, not this batch's: after a commit of its own the writer's
        // newest entries chain to what it knew, whatever another process did to that entry.
        guard let known = state.withLock({ $0.committed }) else { return }
        witness(known, in: StoreSession(database: database))
    }

    func didCommit() {
        state.withLock { $0.committed = $0.tip }
    }

    /// Looks up `known`, an entry this writer wrote or read, in `session`'s view of the file,
    /// and reports it when it is gone or holds another hash.
    func witness(_ known: AuditChainTip, in session: StoreSession) {
        guard known.seq > 0 else { return }
        let found: String?
        let last: Int64
        do {
            found = try session.auditHash(seq: known.seq)
            last = try session.lastAuditSeq()
        } catch {
            return  // cannot tell; the next append reads the tip from the file
        }
        guard found != known.hash else { return }
        let rewrite = AuditChainRewrite(seq: known.seq, expectedHash: known.hash, foundHash: found, lastSeq: last)
        let handler = state.withLock { state -> (@Sendable (AuditChainRewrite) -> Void)? in
            state.rewrites += 1
            state.committed = nil  // reported once: the file's entries from here on are what it holds
            return state.onRewrite
        }
        handler?(rewrite)
    }

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
        state.withLock { state in
            state.tip = nil
            state.beforeBody = nil
            state.committed = nil
        }
    }
}

/// An audit entry the writer knew, found gone or changed after another process committed.
package struct AuditChainRewrite: Sendable, Equatable {
    /// The entry's seq.
    package let seq: Int64
    /// Its hash as the writer wrote or read it.
    package let expectedHash: String
    /// Its hash in the file now; nil when there is no entry at `seq`.
    package let foundHash: String?
    /// The file's last seq now.
    package let lastSeq: Int64
}
