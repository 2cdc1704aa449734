/// What a writer's bodies keep in memory beside the file, to be undone with the writes it
/// describes (the store's audit chain tip, ``AuditChainTipCache``). ``DatabaseWriter`` calls it
/// on its queue, around each body's `SAVEPOINT` (https://www.sqlite.org/lang_savepoint.html).
package protocol SavepointState: AnyObject, Sendable {
    /// A body is about to run in its own savepoint: remember the state to go back to.
    func bodyWillRun()
    /// The body's savepoint was rolled back: go back to the state before it.
    func bodyDidRollBack()
    /// The file may no longer match the state: the whole transaction was rolled back, a
    /// `COMMIT` failed, a body ran outside a transaction, or another process committed.
    func forget()
    /// Another process committed to the file (`PRAGMA data_version` moved): the state may check
    /// what it kept against `database` before it forgets it. On the writer's queue, outside a
    /// transaction; after a commit of the writer's own, before ``didCommit()``.
    func otherProcessCommitted(_ database: Database)
    /// The writer's transaction committed: what the bodies kept is now the file's.
    func didCommit()
}

extension SavepointState {
    package func otherProcessCommitted(_ database: Database) { forget() }
    package func didCommit() {}
}
