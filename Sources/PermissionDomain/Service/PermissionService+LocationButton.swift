import Foundation

extension PermissionService {
    /// The user pressed the app's location button (SPEC §11, HIG "Location button";
    /// ``Rules/locationButton(service:app:stored:effective:pending:now:onceTTL:)``). A press that
    /// changes nothing, or finds the button's prompt pending, is answered from a read snapshot;
    /// a grant or a new prompt takes a write:
    /// - a grant commits Allow Once (`locationButton.granted`, published, lapsing after the once
    ///   TTL like any Allow Once grant) and cancels a pending request prompt of the authorization;
    /// - a new prompt first ends the authorization's pending prompt of another kind (a request
    ///   the press supersedes: cancelled; one past its deadline: expired, actor `system`), and
    ///   counts against `configuration.maxPendingPrompts` like a request's prompt.
    /// - Throws: `PermissionError.unknownService`, `.notFound` (a service without the button),
    ///   `.missingPurposeString`, `.tooManyPrompts`.
    public func pressLocationButton(
        user: UserID, app: AppID, service: ServiceID, actor: Actor, requestId: String?
    ) throws -> LocationButtonOutcome {
        let onceTTL = configuration.onceTTL
        let snapshot = try store.read { reader in
            try planButton(reader, user: user, app: app, service: service, now: now, onceTTL: onceTTL)
        }
        switch snapshot.plan {
        case .unchanged(let standing): return .unchanged(standing, snapshot.loaded.effective)
        case .existing(let prompt): return .prompted(prompt, snapshot.loaded.effective)
        case .prompt, .grant: break
        }
        return try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            let current = try planButton(writer, user: user, app: app, service: service, now: context.now, onceTTL: onceTTL)
            let loaded = current.loaded
            switch current.plan {
            case .unchanged(let standing):
                return .unchanged(standing, loaded.effective)
            case .existing(let prompt):
                return .prompted(prompt, loaded.effective)
            case .grant(let next):
                var detail = ["until": String((next.expiresAt ?? context.now).millisecondsSince1970)]
                detail["purposeLanguage"] = next.purposeLanguage?.rawValue  // as a prompt's entry names it
                let saved = try commit(
                    writer, old: loaded.stored, next: next, action: .locationButtonGranted, context: context,
                    detail: detail)
                try cancelPendingPrompt(writer, key: saved.key, context: context)
                return .granted(try effective(writer, stored: saved, service: loaded.service, now: context.now))
            case .prompt(let plan):
                try requirePromptRoom(writer, user: user, app: app, replacing: service, now: context.now)
                try supersedePendingPrompt(writer, user: user, app: app, service: service, context: context)
                let prompt = try issue(writer, plan: plan, key: loaded.stored.key, context: context)
                return .prompted(prompt, loaded.effective)
            }
        }
    }

    /// The location button rule applied to the state `reader` sees.
    private func planButton(
        _ reader: any PermissionReader, user: UserID, app: AppID, service: ServiceID, now: Date, onceTTL: TimeInterval
    ) throws -> (plan: LocationButtonPlan, loaded: LoadedAuthorization) {
        let loaded = try load(reader, user: user, app: app, service: service, now: now)
        let plan = try Rules.locationButton(
            service: loaded.service, app: try reader.app(app), stored: loaded.stored, effective: loaded.effective,
            pending: try reader.pendingPrompt(user: user, app: app, service: service), now: now, onceTTL: onceTTL,
            locale: try reader.userSettings(user)?.locale)
        return (plan, loaded)
    }

    /// Ends the authorization's stored-pending prompt before a new one is issued in its place:
    /// one still pending at `context.now` is superseded (`cancelled`, by the new prompt's actor),
    /// one past its deadline `expired` (actor `system`), as the sweeper would have ended it.
    func supersedePendingPrompt(
        _ writer: any PermissionWriter, user: UserID, app: AppID, service: ServiceID, context: ChangeContext
    ) throws {
        guard let other = try writer.pendingPrompt(user: user, app: app, service: service) else { return }
        try cancelOrExpire(writer, prompt: other, context: context)
    }

    /// Refuses a new prompt of `app` for `user` when the app already has
    /// `configuration.maxPendingPrompts` prompts pending for the user (SPEC §11 prompt hygiene):
    /// counted inside the write that would issue it, before anything is written, so two
    /// concurrent requests cannot both pass (SQLite has one writer; PostgreSQL writes hold the
    /// audit chain's head lock and read committed rows after taking it). A prompt of `replacing`
    /// (the authorization the new prompt is for, whose pending prompt is about to end) and one
    /// past its deadline do not count.
    /// - Throws: `PermissionError.tooManyPrompts` naming the pending prompts, oldest first.
    func requirePromptRoom(
        _ reader: any PermissionReader, user: UserID, app: AppID, replacing service: ServiceID, now: Date
    ) throws {
        let limit = configuration.maxPendingPrompts
        let filter = PromptFilter(user: user, app: app, state: .pending)
        var pending: [Prompt] = []
        var after: PromptID?
        while true {
            let page = try reader.prompts(matching: filter, after: after, limit: 100)
            pending += page.filter { $0.service != service && $0.effectiveState(at: now) == .pending }
            guard page.count == 100, let last = page.last else { break }
            after = last.id
        }
        guard pending.count >= limit else { return }
        let soonest = pending.map(\.expiresAt).min() ?? now
        let retryAfter = max(1, Int(soonest.timeIntervalSince(now).rounded(.up)))
        throw PermissionError.tooManyPrompts(limit: limit, pending: pending, retryAfter: retryAfter)
    }
}
