import Foundation

extension PermissionService {
    /// Saves `next` as the new version of `old` (version + 1, `updatedAt` now) and appends
    /// one audit entry with the before and after states. A record not stored (`old.version`
    /// 0: never written, or erased) follows the store's ``PermissionWriter/versionFloor()``
    /// instead. Writes nothing when `next` does not differ from `old`. Returns the record as
    /// stored.
    ///
    /// A grant that lapsed before the sweep wrote it (its `expiresAt` passed, reads already say
    /// `expired`) is written lapsed first, as the sweep would (`authorization.expired`, actor
    /// `system`): the log says the grant ended, and the change starts from what the reads showed.
    @discardableResult
    func commit(
        _ writer: any PermissionWriter, old stored: StoredAuthorization, next: StoredAuthorization, action: AuditAction,
        context: ChangeContext, promptId: PromptID? = nil, detail: [String: String] = [:]
    ) throws -> StoredAuthorization {
        guard next.differsInContent(from: stored) else { return stored }
        var old = stored
        if action != .authorizationExpired, stored.lapsed(at: context.now), let lapsed = Rules.lapse(stored: stored) {
            old = try commit(
                writer, old: stored, next: lapsed, action: .authorizationExpired,
                context: ChangeContext(actor: .system, requestId: nil, now: context.now))
            guard next.differsInContent(from: old) else { return old }
        }
        var saved = next
        saved.version = (old.version > 0 ? old.version : try writer.versionFloor()) + 1
        saved.updatedAt = context.now
        try writer.save(saved)
        try writer.append(
            AuditEntry(
                at: context.now, actor: context.actor, action: action, user: saved.user, app: saved.app,
                service: saved.service, from: old.snapshot, to: saved.snapshot, reason: saved.reason,
                purpose: saved.purpose, promptId: promptId, requestId: context.requestId, detail: detail))
        return saved
    }

    /// Whether `next` takes away the end of the grant `old` holds at `now` (an expiring grant,
    /// not Allow Once and not lapsed, made a grant without one): its entry says so with an empty
    /// `until`, since the entry's from and to do not carry the end.
    static func removesEnd(old: StoredAuthorization, next: StoredAuthorization, at now: Date) -> Bool {
        next.status == .authorized && next.expiresAt == nil && old.status == .authorized && !old.once
            && old.expiresAt != nil && !old.lapsed(at: now)
    }

    /// Ends a pending prompt as `expired` or `cancelled` and audits it.
    func end(_ writer: any PermissionWriter, prompt: Prompt, as state: PromptState, context: ChangeContext) throws {
        var ended = prompt
        ended.state = state
        ended.endedAt = context.now
        try writer.save(ended)
        try writer.append(
            AuditEntry(
                at: context.now, actor: context.actor,
                action: state == .expired ? .promptExpired : .promptCancelled, user: prompt.user, app: prompt.app,
                service: prompt.service, promptId: prompt.id, requestId: context.requestId,
                detail: ["kind": prompt.kind.rawValue, "level": prompt.requestedLevel.rawValue, "state": state.rawValue]))
        try locationPromptEnded(writer, prompt)
    }

    /// Ends `prompt`, stored pending, because something else ends it (a change, a reset, a
    /// policy): `cancelled` by `context`'s actor while it is pending at `context.now`; past its
    /// deadline (the sweep has not written that yet) `expired` by `system`, as the sweep would
    /// have ended it, and as reads already show it (SPEC §5). Returns whether it was cancelled.
    @discardableResult
    func cancelOrExpire(_ writer: any PermissionWriter, prompt: Prompt, context: ChangeContext) throws -> Bool {
        guard prompt.effectiveState(at: context.now) == .pending else {
            try end(
                writer, prompt: prompt, as: .expired,
                context: ChangeContext(actor: .system, requestId: context.requestId, now: context.now))
            return false
        }
        try end(writer, prompt: prompt, as: .cancelled, context: context)
        return true
    }

    /// Cancels the pending prompt of `key`, if any (SPEC §4: the authorization was changed
    /// another way; one past its deadline is written expired, ``cancelOrExpire(_:prompt:context:)``).
    /// Returns whether one was cancelled.
    @discardableResult
    func cancelPendingPrompt(_ writer: any PermissionWriter, key: AuthorizationKey, context: ChangeContext) throws -> Bool {
        guard let pending = try writer.pendingPrompt(user: key.user, app: key.app, service: key.service) else {
            return false
        }
        return try cancelOrExpire(writer, prompt: pending, context: context)
    }

    /// Whether the pending `prompt` is still due as `loaded` (its authorization, now) stands: a
    /// request prompt while a request for its level would prompt; the location button's while
    /// a press would show it (``Rules/locationButtonPromptDue(stored:effective:)``); the
    /// upgrade prompt while the grant is provisional Always; a location alert while the app
    /// holds Always. One no longer due asks about a grant the user no longer has (it lapsed, a
    /// policy that gave it went) or one a policy decides: iOS would not show it, and answering
    /// it must not grant anything.
    static func stillDue(_ prompt: Prompt, loaded: LoadedAuthorization) -> Bool {
        switch prompt.kind {
        case .upgrade: Rules.upgradeDue(service: loaded.service, effective: loaded.effective)
        case .locationAlert: Rules.locationAlertEligible(service: loaded.service, effective: loaded.effective)
        case .locationButton: Rules.locationButtonPromptDue(stored: loaded.stored, effective: loaded.effective)
        case .request:
            Rules.promptDue(
                level: prompt.requestedLevel, service: loaded.service, stored: loaded.stored, effective: loaded.effective)
        }
    }

    /// Cancels the pending prompt of `key` when it is no longer due (``stillDue(_:loaded:)``) as
    /// the authorization stands at `context.now`, e.g. after its grant lapsed.
    func cancelPendingPromptNoLongerDue(
        _ writer: any PermissionWriter, key: AuthorizationKey, context: ChangeContext
    ) throws {
        guard let pending = try writer.pendingPrompt(user: key.user, app: key.app, service: key.service) else { return }
        let loaded = try load(writer, user: key.user, app: key.app, service: key.service, now: context.now)
        if !Self.stillDue(pending, loaded: loaded) { try cancelOrExpire(writer, prompt: pending, context: context) }
    }

    /// Saves and audits a new pending prompt made from `plan`.
    /// The purpose string is the base one of `plan`, or its localization for the user's
    /// settings `locale` (``localized(_:_:app:user:)``).
    func issue(
        _ writer: any PermissionWriter, plan base: PromptPlan, key: AuthorizationKey, context: ChangeContext
    ) throws -> Prompt {
        let plan = try localized(writer, base, app: key.app, user: key.user)
        let prompt = Prompt(
            id: configuration.makePromptID(context.now), user: key.user, app: key.app, service: key.service,
            kind: plan.kind, requestedLevel: plan.requestedLevel, options: plan.options, purpose: plan.purpose,
            purposeLanguage: plan.purposeLanguage, purposeKey: plan.purposeKey, state: .pending,
            createdAt: context.now, expiresAt: context.now.addingTimeInterval(configuration.promptTTL),
            backgroundUses: plan.backgroundUses)
        try writer.save(prompt)
        try writer.append(
            AuditEntry(
                at: context.now, actor: context.actor, action: .promptCreated, user: key.user, app: key.app,
                service: key.service, purpose: plan.purpose, promptId: prompt.id, requestId: context.requestId,
                detail: Self.promptDetail(prompt)))
        return prompt
    }
}
