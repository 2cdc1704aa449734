import HTTPCore
import PermissionDomain

/// The prompts page (`GET /consent/`): each pending prompt as the iOS alert, newest last:
/// the title, the purpose string (`dir="auto"`, `lang` of its translation, or of the app's
/// development language for a base string), for the location
/// button's prompt a note on what allowing it means, and one button
/// per option of the prompt in its order, with the iOS labels (each described by the title), in a form that POSTs the
/// choice to `/consent/prompts/{id}/decision`.
enum ConsentPromptsPage {
    /// The choices iOS sets in bold (the one it recommends).
    static let preferred: Set<Choice> = [.allow, .allowWhileUsing, .allowFull, .changeToAlways]

    /// The page. `more`: the user has more pending prompts than `prompts` holds, which the
    /// page says, so that none waits unseen until it expires. The section names, for the live
    /// updates' script, the session it was made for (`data-session`: a fragment for another,
    /// after another link replaced the cookie, is refused and the page loads again) and, when
    /// given, the audit seq read before `prompts` were (`data-after`: the stream starts there,
    /// so a prompt made before it opens is not missed).
    static func page(
        _ prompts: [ConsentShownPrompt], more: Bool = false, visit: ConsentVisit, language: ConsentLanguage,
        flash: ConsentFlash?, status: HTTPStatus = .ok, after: Int64? = nil
    ) -> ConsentPage {
        // Not a live region itself: the script replaces the whole list on each change, which a
        // screen reader would read out whole. It announces the prompts that appeared in
        // `p#prompts-status` instead.
        var attributes: [(StaticString, String)] = [
            ("id", "prompts"), ("tabindex", "-1"), ("data-session", visit.session.id.rawValue),
        ]
        if let after { attributes.append(("data-after", String(after))) }
        var page = ConsentPage(
            status: status, title: ConsentText.text(.promptsHeading, language),
            content: [
                HTML.element("p", ["id": "prompts-status", "role": "status", "class": "visually-hidden"], HTML.join([])),
                HTML.element(
                    "section", attributes: attributes, [section(prompts, more: more, visit: visit, language: language)]),
            ],
            language: language)
        page.visit = visit
        page.section = .prompts
        page.flash = flash
        return page
    }

    /// The inside of `section#prompts` (also `/consent/prompts-fragment`).
    static func section(
        _ prompts: [ConsentShownPrompt], more: Bool = false, visit: ConsentVisit, language: ConsentLanguage
    ) -> HTML {
        guard !prompts.isEmpty else {
            return HTML.element("p", ["id": "no-prompts"], HTML(ConsentText.text(.noPrompts, language)))
        }
        let alerts = prompts.map { alert($0, visit: visit, language: language) }
        guard more else { return HTML.join(alerts) }
        return HTML.join(alerts + [HTML.element("p", ["id": "more-prompts"], HTML(ConsentText.text(.morePrompts, language)))])
    }

    /// One alert.
    static func alert(_ shown: ConsentShownPrompt, visit: ConsentVisit, language: ConsentLanguage) -> HTML {
        let prompt = shown.prompt
        let id = prompt.id.rawValue
        let title = ConsentText.alertTitle(
            app: shown.appName, service: prompt.service, kind: prompt.kind, level: prompt.requestedLevel,
            backgroundUses: prompt.backgroundUses, language)
        var message: [(StaticString, String)] = [("class", "alert-message"), ("id", "message-\(id)")]
        if let tag = shown.textLanguage { message.append(("lang", tag.rawValue)) }
        message.append(("dir", "auto"))
        let buttons = prompt.options.map { choice -> HTML in
            // Described by the alert's title: among several alerts, a screen reader's list of
            // buttons would otherwise offer "Allow", "Allow", "Don't Allow" with nothing to tell
            // which app and service each answers. The name stays the iOS label (the visible text).
            var attributes: [(StaticString, String)] = [
                ("type", "submit"), ("name", "choice"), ("value", choice.rawValue), ("aria-describedby", "title-\(id)"),
            ]
            if preferred.contains(choice) { attributes.append(("class", "preferred")) }
            return HTML.element(
                "button", attributes: attributes, [HTML(ConsentText.choice(choice, service: prompt.service, language))])
        }
        return HTML.element(
            "div",
            [
                "class": "alert", "role": "dialog", "aria-labelledby": "title-\(id)",
                "aria-describedby": prompt.kind == .locationButton ? "message-\(id) note-\(id)" : "message-\(id)",
                "data-prompt-id": id, "data-kind": prompt.kind.rawValue,
            ],
            HTML.element("h2", ["class": "alert-title", "id": "title-\(id)"], HTML(title)),
            HTML.element("p", attributes: message, [HTML(shown.purpose.rawValue)]),
            prompt.kind == .locationButton
                ? HTML.element(
                    "p", ["class": "alert-note", "id": "note-\(id)"],
                    HTML(ConsentText.locationButtonNote(app: shown.appName, language)))
                : HTML.join([]),
            HTML.element(
                "form", ["class": "alert-actions", "method": "post", "action": "/consent/prompts/\(id)/decision"],
                [ConsentPage.csrfField(visit)] + shownFields(shown) + buttons))
    }

    /// The form fields that carry the text the alert shows (and its language), so that the
    /// decision records that text or is refused when it is no longer the app's.
    static let shownField = "shown"
    static let shownLanguageField = "shownLanguage"

    static func shownFields(_ shown: ConsentShownPrompt) -> [HTML] {
        [
            HTML.void("input", ["type": "hidden", "name": shownField, "value": shown.purpose.rawValue]),
            HTML.void("input", ["type": "hidden", "name": shownLanguageField, "value": shown.purposeLanguage?.rawValue ?? ""]),
        ]
    }

    /// The text and language a decision's form says were shown; nil when missing or malformed.
    static func shownText(in form: ConsentForm) -> (text: PurposeString, language: LanguageTag?)? {
        guard let text = form.value(shownField).flatMap({ try? PurposeString($0) }), let tag = form.value(shownLanguageField)
        else { return nil }
        if tag.isEmpty { return (text, nil) }
        guard let language = try? LanguageTag(tag) else { return nil }
        return (text, language)
    }
}
