import PermissionDomain

/// A reader's position in the audit log (a feed's `Last-Event-ID` or `after`, an audit page's
/// `after`) checked against the log's head. A position beyond it names an entry the log does
/// not have: the database was restored from a backup older than what the client read (or the
/// client invented it). Read on from there and the entries numbered up to it again would be
/// skipped without a word; so the answer is `409 beyond-log-head` with the head, and the client
/// drops what it derived from the log and resumes from the head (or from 0).
///
/// The head is the store's committed one (``PermissionStore/committedRevision()``), not what
/// this process shows yet: a PostgreSQL replica may lag behind an entry another replica
/// committed and the client already read there, and a position up to the committed head just
/// waits for this replica to show it, like any position at the end of the log.
enum LogPosition {
    /// The log's head when `seq` is beyond it, nil when it is a position in the log (the head
    /// is read from the database only when `seq` is beyond what this process shows).
    static func headIfBeyond(_ seq: Int64, _ permissions: PermissionService) throws -> Int64? {
        guard seq > 0, try permissions.lastAuditSeq() < seq else { return nil }
        let head = try permissions.store.committedRevision()
        return head < seq ? head : nil
    }

    /// - Throws: `APIProblem` 409 `beyond-log-head`, with the head as `head`, when `seq` (sent
    ///   as `name`) is beyond the log's head.
    static func require(_ seq: Int64, sentAs name: String, _ permissions: PermissionService) throws {
        guard let head = try headIfBeyond(seq, permissions) else { return }
        throw APIProblem(
            .beyondLogHead,
            "\(name) \(seq) is beyond the end of the log (its last entry is \(head)), as after a restore from an "
                + "earlier backup: entries up to \(seq) may be new ones. Drop what was read before and resume after "
                + "\(head), or from 0.",
            extensions: [("head", String(head))])
    }
}
