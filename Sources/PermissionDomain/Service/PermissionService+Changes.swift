public import Foundation

extension PermissionService {
    /// The user changes an authorization in settings (SPEC §4 Settings).
    /// - Parameters:
    ///   - until: when an authorized grant ends (an expiring grant, SPEC §11), nil for none;
    ///     at most `configuration.maxGrantDuration` ahead.
    ///   - ifMatch: the `If-Match` precondition, checked against the current entity-tag.
    /// - Returns: the effective authorization after the change.
    /// - Throws: `PermissionError.preconditionFailed`, `.restrictedByPolicy`, `.grantedByPolicy`,
    ///   `.invalidArgument`, `.invalidCombination` (`until`), `.unknownLevel`, `.unknownService`,
    ///   `.missingPurposeString` (an authorized level whose purpose string the app lacks).
    public func setAuthorization(
        user: UserID, app: AppID, service: ServiceID, status: AuthorizationStatus, level: Level?,
        until: Date? = nil, ifMatch: ETagCondition? = nil, ifNoneMatch: ETagCondition? = nil, actor: Actor,
        requestId: String?
    ) throws -> Authorization {
        try change(
            user: user, app: app, service: service, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, action: .authorizationSet,
            actor: actor,
            requestId: requestId, loadingApp: status == .authorized,
            rule: settingsRule(status: status, level: level, until: until))
    }

    /// The rule of a settings change (SPEC §4 Settings), for the blocking and the submitted form.
    private func settingsRule(
        status: AuthorizationStatus, level: Level?, until: Date?
    ) -> @Sendable (LoadedAuthorization, Date) throws(PermissionError) -> StoredAuthorization {
        let maxGrantDuration = configuration.maxGrantDuration
        return { loaded, now throws(PermissionError) in
            try Rules.settings(
                stored: loaded.stored, effective: loaded.effective, service: loaded.service, app: loaded.app, status: status,
                level: level, now: now, until: until, maxGrantDuration: maxGrantDuration)
        }
    }

    /// The user revokes access (SPEC §4 Revoke): `denied` (`userSet`), at once on the change feed.
    /// - Throws: `PermissionError.preconditionFailed`, `.restrictedByPolicy`, `.grantedByPolicy`,
    ///   `.unknownService`.
    public func revoke(
        user: UserID, app: AppID, service: ServiceID, ifMatch: ETagCondition? = nil, ifNoneMatch: ETagCondition? = nil,
        actor: Actor, requestId: String?
    ) throws -> Authorization {
        try change(
            user: user, app: app, service: service, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch,
            action: .authorizationRevoked, actor: actor,
            requestId: requestId, rule: Self.revokeRule)
    }

    /// ``setAuthorization(user:app:service:status:level:until:ifMatch:actor:requestId:)`` without a
    /// thread waiting for the commit, on a store that can (``SubmittingPermissionStore``):
    /// `completion` gets the same result or error, on the store's writer (quick work only).
    /// Returns false, calling nothing, when the store cannot; use the blocking form then.
    public func setAuthorization(
        user: UserID, app: AppID, service: ServiceID, status: AuthorizationStatus, level: Level?,
        until: Date? = nil, ifMatch: ETagCondition? = nil, ifNoneMatch: ETagCondition? = nil, actor: Actor,
        requestId: String?, completion: @escaping @Sendable (Result<Authorization, any Error>) -> Void
    ) -> Bool {
        submitChange(
            user: user, app: app, service: service, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, action: .authorizationSet,
            actor: actor,
            requestId: requestId, loadingApp: status == .authorized,
            rule: settingsRule(status: status, level: level, until: until),
            completion: completion)
    }

    /// ``revoke(user:app:service:ifMatch:actor:requestId:)`` without a thread waiting for the
    /// commit, as ``setAuthorization(user:app:service:status:level:until:ifMatch:actor:requestId:completion:)``.
    public func revoke(
        user: UserID, app: AppID, service: ServiceID, ifMatch: ETagCondition? = nil, ifNoneMatch: ETagCondition? = nil,
        actor: Actor, requestId: String?, completion: @escaping @Sendable (Result<Authorization, any Error>) -> Void
    ) -> Bool {
        submitChange(
            user: user, app: app, service: service, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch,
            action: .authorizationRevoked, actor: actor,
            requestId: requestId, rule: Self.revokeRule, completion: completion)
    }

    /// The rule of a revocation (SPEC §4 Revoke).
    private static let revokeRule: @Sendable (LoadedAuthorization, Date) throws(PermissionError) -> StoredAuthorization = {
        loaded, _ throws(PermissionError) in
        try Rules.revoke(stored: loaded.stored, effective: loaded.effective)
    }

    /// Hands ``change(user:app:service:ifMatch:ifNoneMatch:action:actor:requestId:loadingApp:rule:)``'s body
    /// to a store that completes writes without a waiting thread; false when the store cannot.
    private func submitChange(
        user: UserID, app: AppID, service: ServiceID, ifMatch: ETagCondition?, ifNoneMatch: ETagCondition?,
        action: AuditAction, actor: Actor,
        requestId: String?, loadingApp: Bool = false,
        rule: @escaping @Sendable (LoadedAuthorization, Date) throws(PermissionError) -> StoredAuthorization,
        completion: @escaping @Sendable (Result<Authorization, any Error>) -> Void
    ) -> Bool {
        guard let store = store as? any SubmittingPermissionStore else { return false }
        let body = changeBody(
            user: user, app: app, service: service, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, action: action,
            actor: actor, requestId: requestId, loadingApp: loadingApp, rule: rule)
        store.submit(body, completion: completion)
        return true
    }

    /// One user change of one authorization: precondition, rule (given the record, the app
    /// when `loadingApp`, and the time of the change), commit, cancel the pending prompt.
    private func change(
        user: UserID, app: AppID, service: ServiceID, ifMatch: ETagCondition?, ifNoneMatch: ETagCondition?,
        action: AuditAction, actor: Actor,
        requestId: String?, loadingApp: Bool = false,
        rule: @escaping @Sendable (LoadedAuthorization, Date) throws(PermissionError) -> StoredAuthorization
    ) throws -> Authorization {
        try store.write(
            changeBody(
                user: user, app: app, service: service, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, action: action,
                actor: actor, requestId: requestId, loadingApp: loadingApp, rule: rule))
    }

    /// The write body of ``change(user:app:service:ifMatch:ifNoneMatch:action:actor:requestId:loadingApp:rule:)``,
    /// for the blocking and the submitted form alike.
    private func changeBody(
        user: UserID, app: AppID, service: ServiceID, ifMatch: ETagCondition?, ifNoneMatch: ETagCondition?,
        action: AuditAction, actor: Actor,
        requestId: String?, loadingApp: Bool,
        rule: @escaping @Sendable (LoadedAuthorization, Date) throws(PermissionError) -> StoredAuthorization
    ) -> @Sendable (any PermissionWriter) throws -> Authorization {
        { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            var loaded = try load(writer, user: user, app: app, service: service, now: context.now)
            if loadingApp { loaded.app = try writer.app(app) }
            // The rule first: a change it refuses (409, 422) would be refused with or without the
            // preconditions, which are then not evaluated (RFC 9110 §13.2.1).
            let next = try rule(loaded, context.now)
            if let ifMatch, !ifMatch.isSatisfied(by: loaded.effective.etag) {
                throw PermissionError.preconditionFailed(current: loaded.effective.etag)
            }
            // Every well-formed authorization has a representation (never written: notDetermined),
            // so `If-None-Match: *` always refuses; a listed tag refuses when it is the current one.
            if let ifNoneMatch, ifNoneMatch.matchesWeakly(loaded.effective.etag) {
                throw PermissionError.preconditionFailed(current: loaded.effective.etag)
            }
            guard next.differsInContent(from: loaded.stored) else { return loaded.effective }
            // The end of the grant, and "" when the change takes away the end of one that had it
            // (the entry's from and to do not carry the end).
            var detail: [String: String] = [:]
            if let end = next.expiresAt {
                detail["until"] = String(end.millisecondsSince1970)
            } else if Self.removesEnd(old: loaded.stored, next: next, at: context.now) {
                detail["until"] = ""
            }
            let saved = try commit(writer, old: loaded.stored, next: next, action: action, context: context, detail: detail)
            try cancelPendingPrompt(writer, key: saved.key, context: context)
            return try effective(writer, stored: saved, service: loaded.service, now: context.now)
        }
    }

    /// An app lifecycle event (SPEC §4 Lifecycle). Who may send which event is the API's
    /// concern (`LifecycleEvent.isAllowedFromApp`).
    /// - `sessionEnded`: every Allow Once grant of (user, app) → notDetermined (`expired`);
    /// - `reinstalled`: services with `resetOnReinstall` → notDetermined (`reinstall`), their
    ///   pending prompts cancelled; every other service kept;
    /// - `backgroundLocationUsed`: one use of location in the background at `usedAt` (now when
    ///   nil). For an Always grant, provisional or not, it is kept for location alerts (SPEC
    ///   §11, ``Rules/recordBackgroundUse(_:user:app:usedAt:now:appVersion:settings:)``); for
    ///   any other state it is not kept, and the app's schedule, if any, goes unless the user's
    ///   own choice is still Always (``recordBackgroundUse(_:loaded:app:usedAt:now:)``). For a provisional
    ///   Always grant it also issues the upgrade prompt (the one already pending is returned as
    ///   it is).
    /// - Parameters:
    ///   - usedAt: when the background use happened (`backgroundLocationUsed` only); within the
    ///     last 3 days.
    /// - Throws: `PermissionError.missingPurposeString` when the app no longer has the
    ///   purpose string the upgrade prompt shows; `.invalidCombination` (`usedAt`) for a time in
    ///   the future or 3 days ago or more, or given with another event.
    public func lifecycle(
        user: UserID, app: AppID, event: LifecycleEvent, usedAt: Date? = nil, actor: Actor, requestId: String?
    ) throws -> LifecycleOutcome {
        if usedAt != nil, event != .backgroundLocationUsed {
            throw PermissionError.invalidCombination(field: "usedAt", why: "only a backgroundLocationUsed event has a time")
        }
        return try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            let detail = ["event": event.rawValue]
            switch event {
            case .sessionEnded:
                var changed: [Authorization] = []
                var after: AuthorizationKey?
                let filter = AuthorizationFilter(user: user, app: app, status: .authorized)
                while true {
                    let page = try writer.authorizations(matching: filter, after: after, limit: 100)
                    for stored in page {
                        guard let next = Rules.endOnce(stored: stored) else { continue }
                        let service = try resolveService(writer, stored.service)
                        let saved = try commit(
                            writer, old: stored, next: next, action: .authorizationExpired, context: context, detail: detail)
                        changed.append(try effective(writer, stored: saved, service: service, now: context.now))
                    }
                    guard page.count == 100, let last = page.last else { break }
                    after = last.key
                }
                return LifecycleOutcome(changed: changed, prompt: nil)
            case .reinstalled:
                var changed: [Authorization] = []
                for service in Catalogue.builtins where service.specials.contains(.resetOnReinstall) {
                    let loaded = try load(writer, user: user, app: app, service: service.id, now: context.now)
                    try cancelPendingPrompt(writer, key: loaded.stored.key, context: context)
                    guard let next = Rules.reset(stored: loaded.stored, reason: .reinstall) else { continue }
                    let saved = try commit(
                        writer, old: loaded.stored, next: next, action: .authorizationReinstalled, context: context,
                        detail: detail)
                    changed.append(try effective(writer, stored: saved, service: service, now: context.now))
                }
                return LifecycleOutcome(changed: changed, prompt: nil)
            case .backgroundLocationUsed:
                let registered = try writer.app(app)
                let service = Catalogue.location
                let loaded = try load(writer, user: user, app: app, service: service, now: context.now)
                let recorded = try recordBackgroundUse(
                    writer, loaded: loaded, app: registered, usedAt: usedAt ?? context.now, now: context.now)
                guard let plan = try Rules.upgradePrompt(service: service, app: registered, effective: loaded.effective)
                else { return LifecycleOutcome(changed: [], prompt: nil, usageRecorded: recorded) }
                if let pending = try writer.pendingPrompt(user: user, app: app, service: service.id),
                    pending.effectiveState(at: context.now) == .pending
                {
                    return LifecycleOutcome(changed: [], prompt: pending, usageRecorded: recorded)
                }
                if let stale = try writer.pendingPrompt(user: user, app: app, service: service.id) {
                    let system = ChangeContext(actor: .system, requestId: requestId, now: context.now)
                    try end(writer, prompt: stale, as: .expired, context: system)
                }
                return LifecycleOutcome(
                    changed: [], prompt: try issue(writer, plan: plan, key: loaded.stored.key, context: context),
                    usageRecorded: recorded)
            }
        }
    }
}
