import Foundation
import HTTPCore
import PermissionDomain

/// Renders the consent pages' HTML documents (SPEC §10): one layout, no inline script or
/// style (the Content-Security-Policy forbids both: one stylesheet and one deferred script,
/// both under `/consent/static/`), the text escaped by ``HTML``. Pages are functions of what
/// they show returning a ``ConsentPage``; ``response`` makes the answer. A page of a session
/// (``visit`` set) has the navigation and the sign-out form; refusals have neither.
struct ConsentPage: Sendable {
    /// The pages the navigation links to.
    enum Section: Sendable, CaseIterable {
        case prompts, settings, history

        /// The page's address.
        var path: String {
            switch self {
            case .prompts: return "/consent/"
            case .settings: return "/consent/settings"
            case .history: return "/consent/history"
            }
        }

        /// The section whose address is `path`; nil for any other text.
        init?(path: String?) {
            guard let found = Self.allCases.first(where: { $0.path == path }) else { return nil }
            self = found
        }
    }

    /// The form field that names the page "Stay Signed In" was pressed on, to go back to.
    static let backField = "back"

    let status: HTTPStatus
    let title: String
    let content: [HTML]
    /// The document's language.
    var language: ConsentLanguage = .en
    /// The session whose page this is: shows the navigation and the sign-out form.
    var visit: ConsentVisit?
    /// The navigation entry of this page (`aria-current="page"`).
    var section: Section?
    /// A confirmation or refusal shown above the content.
    var flash: ConsentFlash?
    /// A page of this site the browser goes on to at once (`<meta http-equiv="refresh">`):
    /// a navigation this site's own page starts, so the browser treats it as same-site.
    var goesOn: String?
    var headers: HTTPHeaders = HTTPHeaders()

    init(status: HTTPStatus, title: String, content: [HTML], language: ConsentLanguage = .en) {
        self.status = status
        self.title = title
        self.content = content
        self.language = language
    }

    /// The whole document.
    var document: String {
        var metadata = [
            HTML.void("meta", ["charset": "utf-8"]),
            HTML.void("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"]),
        ]
        if let goesOn {
            precondition(goesOn.hasPrefix("/") && !goesOn.hasPrefix("//"), "a page goes on to a page of this site only")
            metadata.append(HTML.void("meta", ["http-equiv": "refresh", "content": "0; url=\(goesOn)"]))
        }
        let head = HTML.element(
            "head", [:],
            metadata + [
                HTML.element("title", [:], HTML(title)),
                HTML.void("link", ["rel": "stylesheet", "href": ConsentStatic.stylesheetPath]),
                HTML.element("script", ["src": ConsentStatic.scriptPath, "defer": ""]),
            ])
        var main: [HTML] = [HTML.element("h1", [:], HTML(title))]
        if let visit {
            main.append(HTML.element("p", ["class": "user"], HTML(ConsentText.choicesOf(visit.user.rawValue, language))))
        }
        if let flash { main.append(flash.html(language)) }
        if let visit { main.append(sessionWarning(visit)) }
        var body: [HTML] = []
        if let visit { body.append(navigation(visit)) }
        body.append(HTML.element("main", ["id": "main"], main + content))
        if let visit { body.append(sessionFooter(visit)) }
        return HTML.doctype.rendered
            + HTML.element("html", ["lang": language.rawValue], head, HTML.element("body", [:], body)).rendered
    }

    /// The navigation: the three pages and the sign-out form.
    private func navigation(_ visit: ConsentVisit) -> HTML {
        func link(_ id: StaticString, _ href: String, _ key: ConsentText.Key, _ of: Section) -> HTML {
            var attributes: [(StaticString, String)] = [("id", "\(id)"), ("href", href)]
            if section == of { attributes.append(("aria-current", "page")) }
            return HTML.element("a", attributes: attributes, [HTML(ConsentText.text(key, language))])
        }
        let signOut = HTML.element(
            "form", ["id": "logout", "method": "post", "action": "/consent/logout"],
            Self.csrfField(visit),
            HTML.element("button", ["type": "submit"], HTML(ConsentText.text(.signOut, language))))
        return HTML.element(
            "nav", ["aria-label": ConsentText.text(.navigation, language)],
            link("nav-prompts", "/consent/", .navPrompts, .prompts),
            link("nav-settings", "/consent/settings", .navSettings, .settings),
            link("nav-history", "/consent/history", .navHistory, .history),
            signOut)
    }

    /// The footer of a session's page: when the session ends (`time#session-end`, in UTC; the
    /// script shows it in the browser's time zone) and the "Stay Signed In" form, which moves
    /// the end later (`POST /consent/session/extend`). `data-left-ms` is the time left when the
    /// page was made: the script counts from there on the browser's clock, so a clock that is
    /// off neither warns early nor late.
    private func sessionFooter(_ visit: ConsentVisit) -> HTML {
        let end = visit.session.expiresAt
        let left = max(0, Int((end.timeIntervalSince(visit.at) * 1000).rounded(.down)))
        return HTML.element(
            "footer", ["id": "session"],
            HTML.element(
                "p", [:], HTML(ConsentText.text(.sessionEndsAt, language)),
                HTML.element(
                    "time",
                    [
                        "id": "session-end", "datetime": Self.machineTime(end), "data-left-ms": String(left),
                        "data-session": visit.session.id.rawValue,
                    ],
                    HTML(Self.readableTime(end))),
                HTML(ConsentText.text(.sessionEndsAfter, language))),
            extendForm(visit))
    }

    /// The warning the script fills in ``ConsentSession/warningLead`` before the session's end (an
    /// empty alert region until then, so that its text is announced when it appears) and the
    /// "Stay Signed In" form beside it, hidden until then.
    private func sessionWarning(_ visit: ConsentVisit) -> HTML {
        HTML.element(
            "div", ["id": "session-warning"],
            HTML.element(
                "p",
                [
                    "id": "session-warning-text", "role": "alert",
                    "data-lead-ms": String(Int(ConsentSession.warningLead * 1000)),
                    "data-soon": ConsentText.text(.sessionEndsSoon, language),
                    "data-ended": ConsentText.text(.sessionHasEnded, language),
                ]),
            HTML.element("div", ["id": "session-warning-actions", "hidden": ""], extendForm(visit)))
    }

    /// "Stay Signed In": a form that posts the CSRF token and the page to go back to.
    private func extendForm(_ visit: ConsentVisit) -> HTML {
        HTML.element(
            "form", ["class": "extend", "method": "post", "action": ConsentController.extendPath],
            Self.csrfField(visit),
            HTML.void("input", ["type": "hidden", "name": Self.backField, "value": (section ?? .prompts).path]),
            HTML.element("button", ["type": "submit"], HTML(ConsentText.text(.staySignedIn, language))))
    }

    /// RFC 3339 in UTC with milliseconds, for `<time datetime>`.
    static func machineTime(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// `2026-11-22 10:00 UTC`: the same in every language, unambiguous.
    static func readableTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: date)
    }

    /// The page as `text/html` with ``headers`` (the security headers are added for every
    /// `/consent/` response by ``ConsentSecurityHeaders``).
    var response: HTTPResponse {
        var fields = headers
        fields.replaceOrAdd(name: "Content-Type", value: "text/html; charset=utf-8")
        return HTTPResponse(status: status, headers: fields, body: .bytes(Array(document.utf8)))
    }

    /// A paragraph of text.
    static func paragraph(_ text: String) -> HTML { HTML.element("p", [:], HTML(text)) }

    /// The hidden field with the session's CSRF token, in every form.
    static func csrfField(_ visit: ConsentVisit) -> HTML {
        HTML.void("input", ["type": "hidden", "name": ConsentForm.csrfField, "value": visit.csrfToken])
    }
}
