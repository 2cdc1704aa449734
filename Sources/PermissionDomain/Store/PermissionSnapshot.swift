/// A read snapshot that stays open across calls (``PermissionStore/openSnapshot()``), for a read
/// that does not finish within one call: a user's export is counted when the request is
/// answered, then read a page at a time while the response is written, all in one snapshot.
/// It reads the database alone, never a read cache or read model (whose memory follows the
/// latest commits, and which a long read would fill with what only it asks for): what it shows
/// is exactly its snapshot, the newest audit entries included. It holds a database connection
/// of its own from its opening to ``close()``, so it must be closed as soon as the read ends; a
/// snapshot released without being closed is closed then.
///
/// Used by one thread at a time, which may change from call to call (a request's worker, then
/// the thread that writes its response).
public protocol PermissionSnapshot: AnyObject, Sendable {
    /// Runs `body` on the snapshot: every call sees the state of the first one, whatever was
    /// written since.
    /// - Throws: the body's error; ``PermissionError/unavailable(why:cause:)`` once closed, or
    ///   when the database is lost; the store's other errors, as ``PermissionStore/read(_:)``
    ///   throws them.
    func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T

    /// Ends the snapshot and gives its connection back to the store; later reads throw. A
    /// second call does nothing.
    func close()
}
