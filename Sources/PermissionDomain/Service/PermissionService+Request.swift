public import Foundation

extension PermissionService {
    /// An app asks for `level` of `service` (SPEC §4 Request). A missing purpose string, an
    /// unknown level or service, or an authorization that needs no prompt is answered from a
    /// read snapshot and writes nothing; only a new prompt takes a write.
    /// - Returns: `.decided` (no prompt) or `.prompted` with the new or already pending prompt.
    /// A new prompt counts against `configuration.maxPendingPrompts` (``requirePromptRoom(_:user:app:replacing:now:)``);
    /// the prompt already pending for this authorization is returned as it is, whatever the count
    /// (the location button's too: iOS shows one alert at a time, and the app asks again once the
    /// user answered it). A new prompt ends the authorization's prompt left pending past its
    /// deadline (expired, actor `system`).
    /// - Throws: `PermissionError.unknownService`, `.unknownLevel`, `.missingPurposeString`,
    ///   `.tooManyPrompts`.
    public func request(
        user: UserID, app: AppID, service: ServiceID, level: Level, actor: Actor, requestId: String?
    ) throws -> RequestOutcome {
        let snapshot = try store.read { reader in
            try planRequest(reader, user: user, app: app, service: service, level: level, now: now)
        }
        switch snapshot.plan {
        case .noPrompt: return .decided(snapshot.authorization)
        case .existing(let prompt): return .prompted(prompt, snapshot.authorization)
        case .prompt: break
        }
        return try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            let current = try planRequest(writer, user: user, app: app, service: service, level: level, now: context.now)
            switch current.plan {
            case .noPrompt:
                return .decided(current.authorization)
            case .existing(let prompt):
                return .prompted(prompt, current.authorization)
            case .prompt(let plan):
                try requirePromptRoom(writer, user: user, app: app, replacing: service, now: context.now)
                try supersedePendingPrompt(writer, user: user, app: app, service: service, context: context)
                let key = AuthorizationKey(user: user, app: app, service: service)
                let prompt = try issue(writer, plan: plan, key: key, context: context)
                return .prompted(prompt, current.authorization)
            }
        }
    }

    /// The request rule applied to the state `reader` sees.
    private func planRequest(
        _ reader: any PermissionReader, user: UserID, app: AppID, service: ServiceID, level: Level, now: Date
    ) throws -> (plan: RequestPlan, authorization: Authorization) {
        let loaded = try load(reader, user: user, app: app, service: service, now: now)
        let plan = try Rules.request(
            level: level, service: loaded.service, app: try reader.app(app), stored: loaded.stored,
            effective: loaded.effective, pending: try reader.pendingPrompt(user: user, app: app, service: service),
            now: now)
        return (plan, loaded.effective)
    }

    /// The consent UI answers a prompt (SPEC §4 Prompt): the prompt becomes `answered` and
    /// the authorization changes per `Rules.decide`; one audit entry records both.
    /// - Parameters:
    ///   - choice: the choice's name; one the prompt does not offer is refused.
    ///   - until: when the grant ends (an expiring grant, SPEC §11), nil for none; at most
    ///     `configuration.maxGrantDuration` ahead, and only with a choice that grants access
    ///     other than Allow Once.
    /// - Throws: `PermissionError.notFound`, `.promptNotPending` (also `cancelled` for a prompt
    ///   found no longer due, which is then cancelled: ``stillDue(_:loaded:)``), `.invalidChoice`,
    ///   `.invalidCombination` (`until`).
    public func decide(
        promptID: PromptID, choice: String, until: Date? = nil, actor: Actor, requestId: String?
    ) throws -> DecisionOutcome {
        try decide(promptID: promptID, choice: choice, until: until, languages: [], actor: actor, requestId: requestId)
    }

    /// Why ``decide(promptID:choice:until:languages:shown:actor:requestId:)`` refuses a
    /// decision on a text no longer shown.
    public static let purposeChangedSinceShown = "the purpose string shown is no longer the app's; show the prompt again"

    /// ``decide(promptID:choice:actor:requestId:)`` by a person who was shown the prompt's
    /// purpose string for `languages` (``purposeText(for:languages:)``, e.g. a consent page
    /// with its `Accept-Language`): the text and language actually shown, chosen again inside
    /// the write, are what the answered prompt, the authorization and the audit entry keep.
    /// - Parameters:
    ///   - languages: the person's languages, most preferred first; empty: the prompt's own text.
    ///   - shown: the text and language the person was shown, when known (a page's form carries
    ///     them): a decision on a text that is no longer the one chosen inside the write (the app
    ///     registered a new translation meanwhile) is refused, nothing changed, rather than
    ///     recorded with a text the person never saw.
    /// - Throws: also `PermissionError.conflict` when `shown` is not the text chosen now.
    public func decide(
        promptID: PromptID, choice: String, until: Date? = nil, languages: [String],
        shown expected: (text: PurposeString, language: LanguageTag?)? = nil, actor: Actor, requestId: String?
    ) throws -> DecisionOutcome {
        let outcome = try store.write { writer -> DecisionOutcome? in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            guard var prompt = try writer.prompt(id: promptID) else {
                throw PermissionError.notFound(what: "prompt \(promptID)")
            }
            let state = prompt.effectiveState(at: context.now)
            guard state == .pending else { throw PermissionError.promptNotPending(state) }
            guard let parsed = Choice(rawValue: choice), prompt.options.contains(parsed) else {
                throw PermissionError.invalidChoice(choice: choice, allowed: prompt.options)
            }
            let loaded = try load(writer, user: prompt.user, app: prompt.app, service: prompt.service, now: context.now)
            // A prompt no longer due (the grant it is about lapsed a moment ago, before the sweep
            // cancelled it) is cancelled now, and the answer refused: it grants nothing.
            guard Self.stillDue(prompt, loaded: loaded) else {
                try end(writer, prompt: prompt, as: .cancelled, context: context)
                return nil
            }
            let shown = try purposeText(writer, for: prompt, languages: languages)
            if let expected, expected.text != shown.text || expected.language != shown.language {
                throw PermissionError.conflict(why: Self.purposeChangedSinceShown)
            }
            prompt.purpose = shown.text
            prompt.purposeLanguage = shown.language
            let next = try Rules.decide(
                prompt: prompt, choice: parsed, stored: loaded.stored, service: loaded.service, now: context.now,
                onceTTL: configuration.onceTTL, until: until, maxGrantDuration: configuration.maxGrantDuration)
            prompt.state = .answered
            prompt.endedAt = context.now
            prompt.choice = parsed
            try writer.save(prompt)
            try locationPromptEnded(writer, prompt)
            var extra = ["choice": parsed.rawValue]
            if next.buttonConfirmed && !loaded.stored.buttonConfirmed { extra["locationButton"] = "confirmed" }
            if until != nil, let end = next.expiresAt {
                extra["until"] = String(end.millisecondsSince1970)
            } else if Self.removesEnd(old: loaded.stored, next: next, at: context.now) {
                extra["until"] = ""
            }
            let detail = Self.promptDetail(prompt, extra)
            var saved = loaded.stored
            if next.differsInContent(from: loaded.stored) {
                saved = try commit(
                    writer, old: loaded.stored, next: next, action: .promptAnswered, context: context,
                    promptId: prompt.id, detail: detail)
            } else {
                try writer.append(
                    AuditEntry(
                        at: context.now, actor: context.actor, action: .promptAnswered, user: prompt.user,
                        app: prompt.app, service: prompt.service, from: saved.snapshot, to: saved.snapshot,
                        reason: saved.reason, purpose: prompt.purpose, promptId: prompt.id,
                        requestId: context.requestId, detail: detail))
            }
            return DecisionOutcome(
                prompt: prompt,
                authorization: try effective(writer, stored: saved, service: loaded.service, now: context.now))
        }
        guard let outcome else { throw PermissionError.promptNotPending(.cancelled) }
        return outcome
    }
}
