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
}
