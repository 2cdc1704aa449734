public import Foundation

extension PermissionService {
    /// Writes the changes time makes (SPEC §5), as actor `system`: pending prompts past their
    /// deadline → `expired`; grants past `expiresAt` (Allow Once, and expiring grants, SPEC
    /// §11) → notDetermined (`expired`), with a pending prompt about the grant (the upgrade
    /// prompt, a location alert) cancelled; location alerts that are due (SPEC §11,
    /// ``sweepLocationAlerts(_:context:limit:into:)``).
    /// Idle sweeps only read. The caller runs it about every second, and again at once while
    /// a result reaches `limit`.
    /// - Parameters:
    ///   - now: the time to sweep at; the clock's when nil.
    ///   - limit: at most this many prompts, this many grants and this many location alert
    ///     schedules per call.
    public func sweep(now sweepTime: Date? = nil, limit: Int = 500) throws -> SweepResult {
        let looked = (sweepTime ?? now).truncatedToMilliseconds
        let idle = try store.read { reader in
            try reader.duePrompts(before: looked, limit: 1).isEmpty && reader.dueGrants(before: looked, limit: 1).isEmpty
                && reader.dueLocationAlerts(before: looked, limit: 1).isEmpty
        }
        if idle { return SweepResult() }
        return try store.write { writer in
            // The time of the changes is taken in the write, as every other write's is, not before
            // it waited for its turn: entries after one written meanwhile are not dated before it.
            let at = sweepTime?.truncatedToMilliseconds ?? now
            let context = ChangeContext(actor: .system, requestId: nil, now: at)
            var result = SweepResult()
            for prompt in try writer.duePrompts(before: at, limit: limit) {
                try end(writer, prompt: prompt, as: .expired, context: context)
                result.expiredPrompts += 1
            }
            for stored in try writer.dueGrants(before: at, limit: limit) {
                guard let next = Rules.lapse(stored: stored) else { continue }
                try commit(writer, old: stored, next: next, action: .authorizationExpired, context: context)
                try cancelPendingPromptNoLongerDue(writer, key: stored.key, context: context)
                result.lapsedGrants += 1
            }
            try sweepLocationAlerts(writer, context: context, limit: limit, into: &result)
            return result
        }
    }
}

extension PermissionService {
    /// What ``purgeEnded(now:limit:)`` deleted.
    public struct Purge: Equatable, Sendable {
        public var prompts = 0
        public var consentSessions = 0

        public init(prompts: Int = 0, consentSessions: Int = 0) {
            self.prompts = prompts
            self.consentSessions = consentSessions
        }

        public var isEmpty: Bool { prompts == 0 && consentSessions == 0 }

        /// Whether either count reached `limit`: more may be due.
        public func reached(_ limit: Int) -> Bool { prompts >= limit || consentSessions >= limit }
    }

    /// Deletes the prompts and consent sessions that ended more than
    /// `configuration.endedRetention` seconds ago (storage limitation, GDPR Art. 5(1)(e): they
    /// hold a user id and the purpose text shown in clear; the audit log keeps what happened,
    /// sealed): at most `limit` of each per call, in one transaction. No audit entry: nothing
    /// about a permission changes. A retention of 0 deletes nothing.
    /// - Parameter now: the time to purge at; the clock's when nil.
    public func purgeEnded(now purgeTime: Date? = nil, limit: Int = 500) throws -> Purge {
        guard configuration.endedRetention > 0 else { return Purge() }
        let before = (purgeTime ?? now).addingTimeInterval(-configuration.endedRetention).truncatedToMilliseconds
        return try store.write { writer in
            Purge(
                prompts: try writer.deleteEndedPrompts(before: before, limit: limit),
                consentSessions: try writer.deleteEndedConsentSessions(before: before, limit: limit))
        }
    }
}
