public import Foundation

extension PermissionService {
    /// Writes the changes time makes (SPEC §5), as actor `system`: pending prompts past their
    /// deadline → `expired`; grants past `expiresAt` (Allow Once, and expiring grants, SPEC
    /// §11) → notDetermined (`expired`); location alerts that are due (SPEC §11,
    /// ``sweepLocationAlerts(_:context:limit:into:)``).
    /// Idle sweeps only read. The caller runs it about every second, and again at once while
    /// a result reaches `limit`.
    /// - Parameters:
    ///   - now: the time to sweep at; the clock's when nil.
    ///   - limit: at most this many prompts, this many grants and this many location alert
    ///     schedules per call.
    public func sweep(now sweepTime: Date? = nil, limit: Int = 500) throws -> SweepResult {
        let at = (sweepTime ?? now).truncatedToMilliseconds
        let idle = try store.read { reader in
            try reader.duePrompts(before: at, limit: 1).isEmpty && reader.dueGrants(before: at, limit: 1).isEmpty
                && reader.dueLocationAlerts(before: at, limit: 1).isEmpty
        }
        if idle { return SweepResult() }
        return try store.write { writer in
            let context = ChangeContext(actor: .system, requestId: nil, now: at)
            var result = SweepResult()
            for prompt in try writer.duePrompts(before: at, limit: limit) {
                try end(writer, prompt: prompt, as: .expired, context: context)
                result.expiredPrompts += 1
            }
            for stored in try writer.dueGrants(before: at, limit: limit) {
                guard let next = Rules.lapse(stored: stored) else { continue }
                try commit(writer, old: stored, next: next, action: .authorizationExpired, context: context)
                result.lapsedGrants += 1
            }
            try sweepLocationAlerts(writer, context: context, limit: limit, into: &result)
            return result
        }
    }
}
