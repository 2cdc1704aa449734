import HTTPCore

/// Renders the consent pages' HTML documents (SPEC §10): one layout, no inline script or
/// style (the Content-Security-Policy forbids both: one stylesheet and one deferred script,
/// both under `/consent/static/`), the text escaped by ``HTML``. Pages are functions of what
/// they show returning a ``ConsentPage``; ``response`` makes the answer. A page of a session
/// (``visit`` set) has the navigation and the sign-out form; refusals have neither.
struct ConsentPage: Sendable {
    /// The pages the navigation links to.
    enum Section: Sendable {
        case prompts, settings, history
    }

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
        var body: [HTML] = []
        if let visit { body.append(navigation(visit)) }
        body.append(HTML.element("main", ["id": "main"], main + content))
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
