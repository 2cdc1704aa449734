import HTTPCore
internal import Ownership
import PermissionDomain

/// Revisions on the wire (SPEC §9): every successful write answers `Permission-Revision: <seq>`,
/// the audit seq that includes it; a read that sends `Permission-Consistency: at-least <seq>`
/// is answered only once the replica serving it shows that revision, waiting up to
/// ``maximumWait``, else `503 revision-unavailable` with `Retry-After`; a revision no write has
/// made is `412 precondition-failed` at once.
enum Consistency {
    static let revisionField = "Permission-Revision"
    static let consistencyField = "Permission-Consistency"
    /// How long a read waits for its revision.
    static let maximumWait: Duration = .seconds(1)

    /// The revision a read asks for, nil when it sends no `Permission-Consistency`.
    /// - Throws: `APIProblem` 400 unless the field is `at-least` and a decimal seq.
    static func requiredRevision(_ headers: HTTPHeaders) throws -> Int64? {
        guard let field = headers[consistencyField] else { return nil }
        let parts = field.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "at-least", parts[1].utf8.count <= 18,
            parts[1].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let revision = Int64(parts[1])
        else {
            throw APIProblem.invalidParameter(
                consistencyField, "expected \"at-least <revision>\", the revision a Permission-Revision field gave")
        }
        return revision
    }

    /// Whether a read with `head` must wait for its revision (and so must not run on an event
    /// loop): it asks for one this process does not show yet, or asks malformedly (answered
    /// quickly, but wherever).
    static func mustWait(_ head: HTTPRequestHead, store: any PermissionStore) -> Bool {
        guard let wanted = try? requiredRevision(head.headers) else { return false }
        return ((try? store.visibleRevision()) ?? 0) < wanted
    }

    /// Returns once `store` shows `revision`.
    /// - Throws: `APIProblem` 412 `precondition-failed` when no write has made that revision
    ///   (nothing to wait for: it was never answered); 503 `revision-unavailable` when it
    ///   exists but this process does not show it within ``maximumWait``.
    static func await(_ revision: Int64, store: any PermissionStore) throws {
        if try store.visibleRevision() >= revision { return }
        let committed = try store.committedRevision()
        guard committed >= revision else {
            throw APIProblem(
                .preconditionFailed,
                "No write has made revision \(revision); the newest is \(committed). Send a revision a Permission-Revision field gave."
            )
        }
        // Arrived meanwhile: a store whose committed revision is its visible one (SQLite) never
        // waits, so only a read that does wait is checked for its thread.
        if try store.visibleRevision() >= revision { return }
        QueueOwner.assertMayWait("a read waiting for revision \(revision)")
        guard try !store.awaitRevision(revision, timeout: maximumWait) else { return }
        let visible = (try? store.visibleRevision()) ?? 0
        throw APIProblem(
            .revisionUnavailable,
            "This replica shows revision \(visible); revision \(revision) did not arrive within 1 s. Retry, or read without Permission-Consistency.",
            headers: ["Retry-After": "1"])
    }
}
