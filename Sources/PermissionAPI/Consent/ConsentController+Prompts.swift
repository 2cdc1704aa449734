import HTTPCore
import PermissionDomain

/// The prompts page, its fragment for live updates, one prompt, and the decision.
extension ConsentController {
    /// Most pending prompts a page shows (an app may have few pending at once, SPEC §11).
    static let maxPendingShown = 50

    func registerPrompts(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.page(.get, "/consent/", access: .readPrompts, sessions: sessions) { request, _, visit in
            let language = ConsentLanguage.of(request.headers)
            let after = try permissions.lastAuditSeq()  // first: a prompt made meanwhile is an event after it
            let pending = try Self.pending(visit, ConsentLanguage.preferences(request.headers), permissions)
            return ConsentPromptsPage.page(
                pending.shown, more: pending.more, visit: visit, language: language, flash: Self.flash(request), after: after
            ).response
        }
        routes.page(.get, "/consent/prompts-fragment", access: .readPrompts, sessions: sessions) { request, _, visit in
            // A page made for another session (another link opened since, in another tab) gets
            // none of this one's prompts: 409, and its script loads the page again.
            if let session = try? request.queryValue("session"), session != visit.session.id.rawValue {
                return HTTPResponse(status: .conflict, headers: ["Content-Type": "text/plain; charset=utf-8"])
            }
            let language = ConsentLanguage.of(request.headers)
            let pending = try Self.pending(visit, ConsentLanguage.preferences(request.headers), permissions)
            let html = ConsentPromptsPage.section(pending.shown, more: pending.more, visit: visit, language: language)
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/html; charset=utf-8"], body: .bytes(Array(html.rendered.utf8)))
        }
        routes.page(.get, "/consent/prompts/{id}", access: .readPrompts, sessions: sessions) { request, context, visit in
            let prompt = try Self.ownPrompt(context, visit, permissions)
            let language = ConsentLanguage.of(request.headers)
            guard prompt.effectiveState(at: permissions.clock.now) == .pending else {
                // A link to a prompt answered or ended meanwhile: the prompts still waiting.
                let pending = try Self.pending(visit, ConsentLanguage.preferences(request.headers), permissions)
                return ConsentPromptsPage.page(
                    pending.shown, more: pending.more, visit: visit, language: language,
                    flash: .error(.promptNoLongerWaiting)
                ).response
            }
            var names = ConsentApps()
            let shown = try ConsentShownPrompt(
                prompt, languages: ConsentLanguage.preferences(request.headers), permissions: permissions, names: &names)
            return ConsentPromptsPage.page([shown], visit: visit, language: language, flash: nil).response
        }
        routes.page(.post, "/consent/prompts/{id}/decision", access: .decide, sessions: sessions) {
            request, context, visit in
            let form = try ConsentForm.checked(request, visit: visit)
            let prompt = try Self.ownPrompt(context, visit, permissions)
            let languages = ConsentLanguage.preferences(request.headers)
            func refused(_ status: HTTPStatus, _ key: ConsentText.Key) throws -> HTTPResponse {
                let pending = try Self.pending(visit, languages, permissions)
                return ConsentPromptsPage.page(
                    pending.shown, more: pending.more, visit: visit, language: ConsentLanguage.of(request.headers),
                    flash: .error(key), status: status
                ).response
            }
            guard let choice = form.value("choice") else { return try refused(.badRequest, .errorInvalidChoice) }
            guard let shown = ConsentPromptsPage.shownText(in: form) else {
                // A form of a page made before the text was carried, or one made by hand.
                return try refused(.badRequest, .errorTextNotSent)
            }
            do {
                // The same call as POST /v1/prompts/{id}/decision, with the page's languages and
                // the text the form was shown with: the decision records that text, or is
                // refused when the app's text changed since the page was made.
                _ = try permissions.decide(
                    promptID: prompt.id, choice: choice, languages: languages, shown: shown,
                    actor: visit.session.actor, requestId: context.requestId)
            } catch PermissionError.promptNotPending {
                return try refused(.conflict, .errorNotPending)
            } catch PermissionError.invalidChoice {
                return try refused(.badRequest, .errorInvalidChoice)
            } catch PermissionError.conflict(why: PermissionService.purposeChangedSinceShown) {
                return try refused(.conflict, .errorPurposeChanged)
            }
            return Self.redirect("/consent/?done=\(ConsentFlash.Done.decided.rawValue)")
        }
    }

    /// The session user's pending prompts as shown for `languages`, oldest first, at most
    /// ``maxPendingShown``, and whether more are pending.
    static func pending(
        _ visit: ConsentVisit, _ languages: [String], _ permissions: PermissionService
    ) throws
        -> (shown: [ConsentShownPrompt], more: Bool)
    {
        // One more than is shown, to tell whether more are pending; the oldest (by id) are shown.
        let page = try permissions.prompts(
            matching: PromptFilter(user: visit.user, state: .pending), after: nil, limit: maxPendingShown + 1)
        var names = ConsentApps()
        // Ids follow creation to the millisecond; within one, the clock decides nothing more.
        let items = page.items.prefix(maxPendingShown).sorted {
            ($0.createdAt, $0.id.rawValue) < ($1.createdAt, $1.id.rawValue)
        }
        let shown = try items.map {
            try ConsentShownPrompt($0, languages: languages, permissions: permissions, names: &names)
        }
        return (shown, page.items.count > maxPendingShown)
    }

    /// The prompt of the route's `{id}` when it is the session user's.
    /// - Throws: ``ConsentPageError/notFound`` for a malformed id, no such prompt, or another
    ///   user's (which is not said to exist).
    static func ownPrompt(
        _ context: RequestContext, _ visit: ConsentVisit, _ permissions: PermissionService
    ) throws
        -> Prompt
    {
        guard let raw = context.parameters["id"], let id = try? PromptID(raw) else { throw ConsentPageError.notFound }
        let prompt: Prompt
        do {
            prompt = try permissions.prompt(id: id)
        } catch PermissionError.notFound {
            throw ConsentPageError.notFound
        }
        guard prompt.user == visit.user else { throw ConsentPageError.notFound }
        return prompt
    }
}
