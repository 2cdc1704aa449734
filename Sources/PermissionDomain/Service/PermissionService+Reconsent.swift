extension PermissionService {
    /// Records a re-consent writes per transaction: an app with many grants is worked through
    /// in transactions of this many records scanned, so no write holds the writer for long.
    public static let reconsentBatchSize = 256

    /// The grants of `app` given under a purpose string the app has since changed (SPEC §11,
    /// ``Rules/purposeChanged(stored:service:app:)``), as effective authorizations ordered by
    /// (user, service), after `after`. At most `max(8 × limit, 1000)` stored grants are scanned
    /// per call, so the page may be short while `nextAfter` is set: continue from it.
    /// - Throws: `PermissionError.notFound` when the app is not registered.
    public func purposeChangedGrants(app id: AppID, after: AuthorizationKey?, limit: Int) throws -> AuthorizationPage {
        let at = now
        let limit = max(1, limit)
        let budget = max(8 * limit, 1000)
        return try store.read { reader in
            guard let app = try reader.app(id) else { throw PermissionError.notFound(what: "app \(id)") }
            return try scanAuthorizations(
                reader, matching: AuthorizationFilter(app: id, status: .authorized), after: after, limit: limit,
                budget: budget, now: at, apps: [id: app],
                keepingRecord: { Rules.purposeChanged(stored: $0, service: $1, app: app) })
        }
    }

    /// Asks again for every grant of `app` given under a purpose string it has since changed
    /// (SPEC §11, `PUT /v1/apps/{app}` with `reconsent`): each goes back to `notDetermined`
    /// (`purposeChanged`, ``Rules/reconsent(stored:service:app:)``) with one
    /// `authorization.reconsent` entry, and its pending prompt, if any, is cancelled (it shows
    /// the old text), as is every other pending prompt of the app that shows a text it no
    /// longer has; the app's next request prompts with the new text. Denials stay. Worked
    /// through in transactions of ``reconsentBatchSize`` records, each against the app as
    /// registered when it runs; a failure leaves the batches before it done, and calling again
    /// finishes the rest.
    /// - Returns: the number of grants returned to `notDetermined`.
    /// - Throws: `PermissionError.notFound` when the app is not registered.
    public func reconsent(app id: AppID, actor: Actor, requestId: String?) throws -> Int {
        var after: AuthorizationKey?
        var total = 0
        while true {
            let start = after
            let (changed, next) = try store.write { writer -> (Int, AuthorizationKey?) in
                guard let app = try writer.app(id) else { throw PermissionError.notFound(what: "app \(id)") }
                let context = ChangeContext(actor: actor, requestId: requestId, now: now)
                let filter = AuthorizationFilter(app: id, status: .authorized)
                let page = try writer.authorizations(matching: filter, after: start, limit: Self.reconsentBatchSize)
                var services: [ServiceID: ServiceDefinition] = [:]
                var changed = 0
                // A grant that has lapsed (the sweep has not written it yet) is no grant to ask
                // again for: the sweep ends it, as itself.
                for stored in page where !stored.lapsed(at: context.now) {
                    let service = try services[stored.service] ?? resolveService(writer, stored.service)
                    services[stored.service] = service
                    guard let next = Rules.reconsent(stored: stored, service: service, app: app) else { continue }
                    try commit(writer, old: stored, next: next, action: .authorizationReconsent, context: context)
                    try cancelPendingPrompt(writer, key: stored.key, context: context)
                    changed += 1
                }
                return (changed, page.count == Self.reconsentBatchSize ? page.last?.key : nil)
            }
            total += changed
            guard let next else { break }
            after = next
        }
        try cancelPromptsShowingOldText(app: id, actor: actor, requestId: requestId)
        return total
    }

    /// Cancels the pending prompts of `app` that show a text the app no longer has for their
    /// purpose key, in their language (a prompt asked before the app changed its text, for a
    /// user with no grant to ask again for): the app's next request prompts with the new text,
    /// as a re-consent promises (one past its deadline is written expired,
    /// ``cancelOrExpire(_:prompt:context:)``). In transactions of ``reconsentBatchSize`` prompts
    /// looked at.
    private func cancelPromptsShowingOldText(app id: AppID, actor: Actor, requestId: String?) throws {
        var after: PromptID?
        while true {
            let start = after
            let next = try store.write { writer -> PromptID? in
                guard let app = try writer.app(id) else { throw PermissionError.notFound(what: "app \(id)") }
                let context = ChangeContext(actor: actor, requestId: requestId, now: now)
                let page = try writer.prompts(
                    matching: PromptFilter(app: id, state: .pending), after: start, limit: Self.reconsentBatchSize)
                for prompt in page
                where app.purposeStrings(shownIn: prompt.purposeLanguage)?[prompt.purposeKey] != prompt.purpose {
                    try cancelOrExpire(writer, prompt: prompt, context: context)
                }
                return page.count == Self.reconsentBatchSize ? page.last?.id : nil
            }
            guard let next else { return }
            after = next
        }
    }
}
