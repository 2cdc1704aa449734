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

    /// Checks a reader's position: `seq`, sent as `name`, and the hash of the entry the client
    /// read there, if it sent one (as `hashName`).
    /// - Throws: `APIProblem` 409 `beyond-log-head`, with the head as `head`, when `seq` is
    ///   beyond the log's head; 409 `log-diverged`, with the head, when the log's entry `seq`
    ///   has another hash than `hash`: the database was restored from a backup older than what
    ///   the client read and has grown past it again, so a position within the log no longer
    ///   names what the client read.
    static func require(
        _ seq: Int64, hash: String?, sentAs name: String, hashSentAs hashName: String, _ permissions: PermissionService
    ) throws {
        if let head = try headIfBeyond(seq, permissions) {
            throw APIProblem(
                .beyondLogHead,
                "\(name) \(seq) is beyond the end of the log (its last entry is \(head)), as after a restore from an "
                    + "earlier backup: entries up to \(seq) may be new ones. Drop what was read before and resume after "
                    + "\(head), or from 0.",
                extensions: [("head", String(head))])
        }
        guard let hash, try permissions.auditHash(seq: seq) != hash else { return }
        let head = try permissions.store.committedRevision()
        throw APIProblem(
            .logDiverged,
            "The log's entry \(seq) is not the one the client read there (\(hashName) names another hash), as after a "
                + "restore from an earlier backup: entries from some point up to \(seq) may be new ones. Drop what was "
                + "read before and resume from 0, or after \(head).",
            extensions: [("head", String(head))])
    }

    /// The hash a client sent with its position (`name`): 64 lowercase hex digits, as entries
    /// carry it (`hash`); nil when absent, and when there is no position after an entry to
    /// compare it at (`position` nil or 0: nothing read yet), where it is ignored.
    /// - Throws: `APIProblem` 400 for anything else.
    static func hash(_ raw: String?, sentAs name: String, position: Int64?) throws -> String? {
        guard let raw else { return nil }
        let bytes = raw.utf8
        guard bytes.count == 64, bytes.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else {
            throw APIProblem.invalidParameter(name, "must be the hash of the entry read last: 64 lowercase hex digits")
        }
        guard let position, position > 0 else { return nil }
        return raw
    }
}
