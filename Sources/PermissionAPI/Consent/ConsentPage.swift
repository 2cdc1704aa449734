import HTTPCore

/// Renders the consent pages' HTML documents (SPEC §10): one layout, no inline script or
/// style (the Content-Security-Policy forbids both), the text escaped by ``HTML``. Pages are
/// functions of what they show returning a ``ConsentPage``; ``response`` makes the answer.
struct ConsentPage: Sendable {
    let status: HTTPStatus
    let title: String
    let content: [HTML]
    /// The document's language (BCP 47).
    var language = "en"
    var headers: HTTPHeaders = HTTPHeaders()

    /// The whole document.
    var document: String {
        let head = HTML.element(
            "head", [:],
            [
                HTML.void("meta", ["charset": "utf-8"]),
                HTML.void("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"]),
                HTML.element("title", [:], HTML(title)),
            ])
        let body = HTML.element(
            "body", [:], [HTML.element("main", [:], [HTML.element("h1", [:], HTML(title))] + content)])
        return HTML.doctype.rendered + HTML.element("html", ["lang": language], head, body).rendered
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

    /// A form that POSTs to `action` with the session's CSRF token and one submit button.
    static func form(action: String, csrfToken: String, button: String) -> HTML {
        HTML.element(
            "form", ["method": "post", "action": action],
            HTML.void("input", ["type": "hidden", "name": ConsentForm.csrfField, "value": csrfToken]),
            HTML.element("button", ["type": "submit"], HTML(button)))
    }
}
