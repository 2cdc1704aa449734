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
        // The tip is read from the file at the next append; what this writer committed stays
        // known, so that a commit that left the log as it was (a checkpoint, a subcommand's
        // table) does not blind the witness to a rewrite after it.
        let (known, latest) = state.withLock { state -> (AuditChainTip?, AuditChainTip?) in
            defer {
                state.tip = nil
                state.beforeBody = nil
            }
            return (state.committed, state.tip)
        }
        let session = StoreSession(database: database)
        // The last commit's tip first, not this batch's: after a commit of its own the writer's
        // newest entries chain to what it knew, whatever another process did to that entry.
        if let known, !witness(known, in: session) { return }
        // Then this batch's own newest entry (when the commit was just now), which becomes
        // the entry the writer knows.
        if let latest, latest != known, witness(latest, in: session) {
            state.withLock { $0.committed = latest }
        }
    }

    func didCommit() {
        state.withLock { state in
            if let tip = state.tip { state.committed = tip }
        }
    }

    /// Looks up `known`, an entry this writer wrote or read, in `session`'s view of the file,
    /// and reports it when it is gone or holds another hash.
    /// - Returns: whether it was found as known (false also when the file cannot be read).
    @discardableResult
    func witness(_ known: AuditChainTip, in session: StoreSession) -> Bool {
        guard known.seq > 0 else { return true }
        let found: String?
        let last: Int64
        do {
            found = try session.auditHash(seq: known.seq)
            last = try session.lastAuditSeq()
        } catch {
            return false  // cannot tell; the next append reads the tip from the file
        }
        guard found != known.hash else { return true }
        let rewrite = AuditChainRewrite(seq: known.seq, expectedHash: known.hash, foundHash: found, lastSeq: last)
        let handler = state.withLock { state -> (@Sendable (AuditChainRewrite) -> Void)? in
            state.rewrites += 1
            state.committed = nil  // reported once: the file's entries from here on are what it holds
            return state.onRewrite
        }
        handler?(rewrite)
        return false
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

    /// Forgets the tip (the next append reads it from the file); the entry of the last commit
    /// stays known: it is in the file unless someone changes it, which the witness is for.
    func forget() {
        state.withLock { state in
            state.tip = nil
            state.beforeBody = nil
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
