extension PermissionService {
    /// Erases `user` (GDPR Art. 17, SPEC §11 Erasure) in one write: everything stored about them
    /// goes, their audit key is destroyed, and one `user.erased` entry names only the pseudonym
    /// their entries keep. Afterwards the user reads as `notDetermined` everywhere.
    /// - Throws: `PermissionError.notFound` when nothing is stored about the user (nothing is
    ///   written then).
    public func eraseUser(_ user: UserID, actor: Actor, requestId: String?) throws -> UserErasure {
        try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            var erasure = try writer.eraseUser(user)
            guard !erasure.isEmpty else { throw PermissionError.notFound(what: "user \(user.rawValue)") }
            erasure.seq = try writer.append(
                AuditEntry(
                    at: context.now, actor: context.actor, action: .userErased, requestId: context.requestId,
                    detail: erasure.auditDetail))
            return erasure
        }
    }
}
