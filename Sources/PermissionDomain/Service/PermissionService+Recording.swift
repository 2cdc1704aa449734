extension PermissionService {
    /// Saves `next` as the new version of `old` (version + 1, `updatedAt` now) and appends
    /// one audit entry with the before and after states. A record not stored (`old.version`
    /// 0: never written, or erased) follows the store's ``PermissionWriter/versionFloor()``
    /// instead. Writes nothing when `next` does not differ from `old`. Returns the record as
    /// stored.
    @discardableResult
    func commit(
        _ writer: any PermissionWriter, old: StoredAuthorization, next: StoredAuthorization, action: AuditAction,
        context: ChangeContext, promptId: PromptID? = nil, detail: [String: String] = [:]
    ) throws -> StoredAuthorization {
        guard next.differsInContent(from: old) else { return old }
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

    /// Cancels the pending prompt of `key`, if any (SPEC §4: the authorization was changed
    /// another way). Returns whether one was cancelled.
    @discardableResult
    func cancelPendingPrompt(_ writer: any PermissionWriter, key: AuthorizationKey, context: ChangeContext) throws -> Bool {
        guard let pending = try writer.pendingPrompt(user: key.user, app: key.app, service: key.service) else {
            return false
        }
        try end(writer, prompt: pending, as: .cancelled, context: context)
        return true
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
