extension PermissionService {
    /// Creates or replaces a policy (SPEC §4 Policies) and cancels the pending prompts it now
    /// decides (a request prompt no longer due, an upgrade prompt no longer due, a location
    /// alert for an app that no longer holds Always). A replacement with another service, app or
    /// user is audited as the old policy's `policy.deleted`, then the new one's `policy.put`.
    /// - Throws: `PermissionError.unknownService`, `.unknownLevel`, `.invalidArgument`.
    public func putPolicy(
        id: PolicyID, service: ServiceID, app: AppID?, user: UserID?, effect: PolicyEffect, level: Level?,
        actor: Actor, requestId: String?
    ) throws -> Policy {
        try upsertPolicy(
            id: id, service: service, app: app, user: user, effect: effect, level: level, actor: actor,
            requestId: requestId
        ).value
    }

    /// ``putPolicy(id:service:app:user:effect:level:actor:requestId:)``, and whether the
    /// policy was new. Decided inside the write transaction: of concurrent first `PUT`s of one
    /// id exactly one is told it created the policy.
    /// - Parameter condition: `If-Match: *` / `If-None-Match: *`, checked in the transaction.
    public func upsertPolicy(
        id: PolicyID, service: ServiceID, app: AppID?, user: UserID?, effect: PolicyEffect, level: Level?,
        condition: ExistenceCondition? = nil, actor: Actor, requestId: String?
    ) throws -> Upserted<Policy> {
        try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            let existing = try writer.policy(id: id)
            let created = existing == nil
            let definition = try resolveService(writer, service)
            if let level { try definition.requireLevel(level) }
            let policy = try Policy(
                id: id, service: service, app: app, user: user, effect: effect, level: level, updatedAt: context.now)
            // After the definition's own checks: one they refuse is refused whatever the
            // preconditions say (RFC 9110 §13.2.1).
            try condition?.check(exists: existing != nil, what: "policy \(id)")
            // The same policy again changes nothing: no write, no audit entry (SPEC §5: one
            // entry a change), its time kept.
            if let existing, existing.service == service, existing.app == app, existing.user == user,
                existing.effect == effect, existing.level == level
            {
                return Upserted(value: existing, created: false)
            }
            try writer.save(policy)
            // A policy moved to another service, app or user stops applying where it did: that
            // is its deletion there, audited as such, so that the entry naming the old scope
            // reaches whoever reads it (an app's own feed, a user's history).
            if let existing, existing.service != service || existing.app != app || existing.user != user {
                try writer.append(Self.policyDeletedEntry(existing, context: context))
            }
            var detail = ["policy": id.rawValue, "effect": effect.rawValue]
            detail["level"] = level?.rawValue
            try writer.append(
                AuditEntry(
                    at: context.now, actor: context.actor, action: .policyPut, user: user, app: app, service: service,
                    requestId: context.requestId, detail: detail))
            try cancelPromptsNoLongerDue(
                writer, matching: PromptFilter(user: policy.user, app: policy.app, service: policy.service, state: .pending),
                context: context)
            return Upserted(value: policy, created: created)
        }
    }

    /// Cancels the pending prompts matching `filter` that are no longer due as the state now
    /// stands (a policy that decides them, Location Services switched off; ``stillDue(_:loaded:)``).
    /// - Parameter only: which services' prompts to look at; nil for all.
    private func cancelPromptsNoLongerDue(
        _ writer: any PermissionWriter, matching filter: PromptFilter,
        only: (ServiceDefinition) -> Bool = { _ in true }, context: ChangeContext
    ) throws {
        var after: PromptID?
        while true {
            let page = try writer.prompts(matching: filter, after: after, limit: 100)
            for prompt in page {
                guard let service = try Catalogue.builtin(prompt.service) ?? writer.service(prompt.service), only(service)
                else { continue }
                let loaded = try load(writer, user: prompt.user, app: prompt.app, service: prompt.service, now: context.now)
                if !Self.stillDue(prompt, loaded: loaded) { try cancelOrExpire(writer, prompt: prompt, context: context) }
            }
            guard page.count == 100, let last = page.last else { return }
            after = last.id
        }
    }

    /// Deletes a policy.
    /// - Throws: `PermissionError.notFound`.
    /// - Parameter condition: `If-None-Match: *` refuses it (the policy exists); checked after
    /// the policy is found (a missing one is `notFound` whatever the condition).
    public func deletePolicy(id: PolicyID, condition: ExistenceCondition? = nil, actor: Actor, requestId: String?) throws {
        try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            guard let policy = try writer.policy(id: id) else { throw PermissionError.notFound(what: "policy \(id)") }
            try condition?.check(exists: true, what: "policy \(id)")
            try writer.deletePolicy(id: id)
            try writer.append(Self.policyDeletedEntry(policy, context: context))
        }
    }

    /// The `policy.deleted` entry of `policy`: its scope (service, app, user), and `policy`,
    /// `effect` and `level` in the detail.
    private static func policyDeletedEntry(_ policy: Policy, context: ChangeContext) -> AuditEntry {
        var detail = ["policy": policy.id.rawValue, "effect": policy.effect.rawValue]
        detail["level"] = policy.level?.rawValue
        return AuditEntry(
            at: context.now, actor: context.actor, action: .policyDeleted, user: policy.user, app: policy.app,
            service: policy.service, requestId: context.requestId, detail: detail)
    }

    /// Registers or updates an app, its purpose strings and their translations (SPEC §4 Apps,
    /// §11); both sets are replaced whole. Prompts already made keep the purpose string they
    /// showed. `version`, when given, is the app's new version: a change starts the location
    /// alert intervals of all its users over (SPEC §11); when nil the registered one stays.
    /// `developmentLanguage` is the base strings' language, replaced with them (nil: none).
    /// - Throws: `PermissionError.invalidArgument`.
    public func putApp(
        id: AppID, name: String, purposeStrings: [String: PurposeString],
        localizedPurposeStrings: [LanguageTag: [String: PurposeString]] = [:], developmentLanguage: LanguageTag? = nil,
        version: String? = nil, actor: Actor, requestId: String?
    ) throws -> App {
        try upsertApp(
            id: id, name: name, purposeStrings: purposeStrings, localizedPurposeStrings: localizedPurposeStrings,
            developmentLanguage: developmentLanguage, version: version, actor: actor, requestId: requestId
        ).value
    }

    /// ``putApp(id:name:purposeStrings:localizedPurposeStrings:developmentLanguage:version:actor:requestId:)``, and
    /// whether the app was new (decided inside the write transaction, like
    /// ``upsertPolicy(id:service:app:user:effect:level:actor:requestId:)``). The `app.put`
    /// entry's detail has `name`, `purposeKeys`, when there are translations `languages`
    /// (comma-joined, sorted), when given `developmentLanguage`, and when the app has a version
    /// `version`.
    public func upsertApp(
        id: AppID, name: String, purposeStrings: [String: PurposeString],
        localizedPurposeStrings: [LanguageTag: [String: PurposeString]] = [:], developmentLanguage: LanguageTag? = nil,
        version: String? = nil, condition: ExistenceCondition? = nil, actor: Actor, requestId: String?
    ) throws -> Upserted<App> {
        let app = try App(
            id: id, name: name, purposeStrings: purposeStrings, localizedPurposeStrings: localizedPurposeStrings,
            developmentLanguage: developmentLanguage, version: version, updatedAt: now)
        return try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            let existing = try writer.app(id)
            try condition?.check(exists: existing != nil, what: "app \(id)")
            let created = existing == nil
            let newVersion = version ?? existing?.version
            // The same registration again changes nothing: no write, no audit entry (SPEC §5: one
            // entry a change), its time kept.
            if let existing, existing.name == app.name, existing.purposeStrings == app.purposeStrings,
                existing.localizedPurposeStrings == app.localizedPurposeStrings,
                existing.developmentLanguage == app.developmentLanguage, existing.version == newVersion
            {
                return Upserted(value: existing, created: false)
            }
            let app = App(
                trusted: id, name: app.name, purposeStrings: app.purposeStrings,
                localizedPurposeStrings: app.localizedPurposeStrings, developmentLanguage: app.developmentLanguage,
                version: newVersion, updatedAt: context.now)
            try writer.save(app)
            if let existing, newVersion != existing.version {
                try restartLocationAlerts(writer, app: id, version: newVersion)
            }
            var detail = ["name": name, "purposeKeys": purposeStrings.keys.sorted().joined(separator: ",")]
            if !localizedPurposeStrings.isEmpty {
                detail["languages"] = localizedPurposeStrings.keys.sorted().map(\.rawValue).joined(separator: ",")
            }
            detail["developmentLanguage"] = developmentLanguage?.rawValue
            detail["version"] = newVersion
            try writer.append(
                AuditEntry(
                    at: context.now, actor: context.actor, action: .appPut, app: id, requestId: context.requestId,
                    detail: detail))
            return Upserted(value: app, created: created)
        }
    }

    /// Creates or replaces a custom service (SPEC §2). Built-in ids are refused, and so is a
    /// redefinition that drops a level stored authorizations hold, pending prompts ask for or
    /// allow policies grant: they would be left at a level the service no longer has (the status
    /// read would still say authorized there while an evaluation denies, and the level could not
    /// be set again; an allow policy would stop applying without a word in the audit log).
    /// - Throws: `PermissionError.conflict` for a built-in id, `.levelInUse` (the first dropped
    ///   level in the old definition's order that is held; nothing changed), `.invalidArgument`.
    public func putService(
        id: ServiceID, levels: [Level], purposeKeys: [[String]], actor: Actor, requestId: String?
    ) throws -> ServiceDefinition {
        try upsertService(id: id, levels: levels, purposeKeys: purposeKeys, actor: actor, requestId: requestId).value
    }

    /// ``putService(id:levels:purposeKeys:actor:requestId:)``, and whether the service was new
    /// (decided inside the write transaction, like ``upsertPolicy(id:service:app:user:effect:level:actor:requestId:)``).
    public func upsertService(
        id: ServiceID, levels: [Level], purposeKeys: [[String]], condition: ExistenceCondition? = nil, actor: Actor,
        requestId: String?
    ) throws -> Upserted<ServiceDefinition> {
        guard !Catalogue.isBuiltin(id) else { throw PermissionError.conflict(why: "\(id) is a built-in service") }
        let definition = try ServiceDefinition(id: id, levels: levels, purposeKeys: purposeKeys)
        return try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            let existing = try writer.service(id)
            if let existing {
                try requireKeptLevels(writer, old: existing, new: definition)
            }
            // After the refusals of its own (RFC 9110 §13.2.1), before the no-op answer.
            try condition?.check(exists: existing != nil, what: "service \(id)")
            // The same definition again changes nothing: no write, no audit entry (SPEC §5: one
            // entry a change), as for apps and policies.
            if let existing, existing == definition { return Upserted(value: existing, created: false) }
            try writer.save(definition)
            try writer.append(
                AuditEntry(
                    at: context.now, actor: context.actor, action: .servicePut, service: id,
                    requestId: context.requestId,
                    detail: ["levels": levels.map(\.rawValue).joined(separator: ",")]))
            return Upserted(value: definition, created: existing == nil)
        }
    }

    /// Refuses a redefinition that drops a level something holds (``LevelUse``), inside the
    /// redefinition's write: a grant committed before it is counted, one after it is checked
    /// against the new definition.
    private func requireKeptLevels(
        _ writer: any PermissionWriter, old: ServiceDefinition, new: ServiceDefinition
    ) throws {
        let dropped = old.levels.filter { !new.has($0) }
        guard !dropped.isEmpty else { return }
        let use = try writer.levelUse(service: old.id)
        var granting: [Level: Int] = [:]
        var after: PolicyID?
        while true {
            let page = try writer.policies(after: after, limit: 500)
            for policy in page where policy.service == old.id && policy.effect == .allow {
                if let level = policy.level { granting[level, default: 0] += 1 }
            }
            guard page.count == 500, let last = page.last else { break }
            after = last.id
        }
        for level in dropped {
            let held = use[level] ?? LevelUse()
            let policies = granting[level] ?? 0
            guard held.authorizations > 0 || held.pendingPrompts > 0 || policies > 0 else { continue }
            throw PermissionError.levelInUse(
                service: old.id, level: level, authorizations: held.authorizations, pendingPrompts: held.pendingPrompts,
                policies: policies)
        }
    }

    /// The user's Location Services switch (SPEC §4), their `locale` kept. Audited when it changes.
    public func setLocationServices(user: UserID, enabled: Bool, actor: Actor, requestId: String?) throws -> UserSettings {
        try changeSettings(user: user, actor: actor, requestId: requestId) { current in
            UserSettings(user: user, locationServicesEnabled: enabled, locale: current.locale)
        }
    }

    /// Replaces the user's settings: the Location Services switch (SPEC §4) and their language
    /// (SPEC §11; nil for the base purpose strings). Audited when they change.
    public func putSettings(
        user: UserID, locationServicesEnabled: Bool, locale: LanguageTag?, actor: Actor, requestId: String?
    ) throws -> UserSettings {
        try changeSettings(user: user, actor: actor, requestId: requestId) { _ in
            UserSettings(user: user, locationServicesEnabled: locationServicesEnabled, locale: locale)
        }
    }

    /// One settings change: `next` of the current settings, saved with `updatedAt` now and one
    /// `settings.changed` entry, or nothing when it changes nothing. The entry's detail has
    /// `locationServicesEnabled` and, when a locale is set or was just cleared, `locale` (the
    /// tag, or empty for none).
    private func changeSettings(
        user: UserID, actor: Actor, requestId: String?, next: @escaping @Sendable (UserSettings) -> UserSettings
    ) throws -> UserSettings {
        try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            let current = try writer.userSettings(user) ?? UserSettings(user: user)
            var changed = next(current)
            guard changed.locationServicesEnabled != current.locationServicesEnabled || changed.locale != current.locale
            else { return current }
            changed.updatedAt = context.now
            try writer.save(changed)
            var detail = ["locationServicesEnabled": changed.locationServicesEnabled ? "true" : "false"]
            if changed.locale != nil || current.locale != nil { detail["locale"] = changed.locale?.rawValue ?? "" }
            try writer.append(
                AuditEntry(
                    at: context.now, actor: context.actor, action: .settingsChanged, user: user,
                    requestId: context.requestId, detail: detail))
            // Switched off: the user's pending location prompts are no longer shown (iOS shows no
            // location alert while Location Services is off).
            if current.locationServicesEnabled, !changed.locationServicesEnabled {
                try cancelPromptsNoLongerDue(
                    writer, matching: PromptFilter(user: user, state: .pending), only: \.hasLocationServicesSwitch,
                    context: context)
            }
            return changed
        }
    }
}
