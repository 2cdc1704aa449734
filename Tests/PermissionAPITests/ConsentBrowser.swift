import Foundation
import HTTPCore
import PermissionWire
import Testing

/// A browser on the consent pages, in-process: a session's cookie, an `Accept-Language`, and
/// forms posted with the CSRF token of the last page read, as a person would submit them.
struct ConsentBrowser {
    let app: TestApp
    let user: String
    let cookie: String
    var acceptLanguage: String

    /// Opens a consent link for `user`.
    init(_ app: TestApp, user: String = "u42", acceptLanguage: String = "") throws {
        self.app = app
        self.user = user
        cookie = try ConsentSessionTests.session(app, user: user)
        self.acceptLanguage = acceptLanguage
    }

    var headers: [(String, String)] {
        [ConsentSessionTests.noKey, ("Cookie", cookie), ("Accept-Language", acceptLanguage)]
    }

    /// `GET target` with the cookie.
    func get(_ target: String) throws -> TestResponse {
        try app.send(.get, target, headers: headers)
    }

    /// The session's CSRF token, read from a page's form.
    func csrf() throws -> String {
        try ConsentSessionTests.csrfToken(in: try get("/consent/").text)
    }

    /// POSTs `fields` urlencoded (the CSRF token first unless `csrf` is false).
    func post(_ target: String, _ fields: [(String, String)], csrf: Bool = true) throws -> TestResponse {
        var all = fields
        if csrf { all.insert(("csrf", try self.csrf()), at: 0) }
        let body = all.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return try app.send(
            .post, target, body: Array(body.utf8),
            headers: headers + [("Content-Type", "application/x-www-form-urlencoded")])
    }

    /// The fields the form of prompt `id` carries besides the choice and the CSRF token (the
    /// text shown and its language), from the prompt's page as this browser gets it; none when
    /// the page shows no such prompt.
    func shownFields(_ id: String) throws -> [(String, String)] {
        let page = try get("/consent/prompts/\(id)").text
        return ["shown", "shownLanguage"].compactMap { name -> (String, String)? in
            let marker = #"<input type="hidden" name="\#(name)" value=""#
            guard let start = page.range(of: marker) else { return nil }
            return (name, Markup.unescape(String(page[start.upperBound...].prefix { $0 != "\"" })))
        }
    }

    /// Answers prompt `id` with `choice` as its form on the page does (`shown`: the form's
    /// fields read earlier, else read now).
    func decide(_ id: String, _ choice: String, shown: [(String, String)]? = nil) throws -> TestResponse {
        try post("/consent/prompts/\(id)/decision", [("choice", choice)] + (try shown ?? shownFields(id)))
    }

    /// Posts and follows the 303 like a browser: the page it leads to.
    func submit(_ target: String, _ fields: [(String, String)]) throws -> TestResponse {
        let response = try post(target, fields)
        guard response.status == 303, let location = response.headers["Location"] else {
            throw TestFailure("expected 303 from \(target), got \(response.status): \(response.text)")
        }
        return try get(location)
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// Reading the pages' markup in tests.
enum Markup {
    /// The alert `div` of prompt `id` in `page` (up to its closing form and div).
    static func alert(_ id: String, in page: String) throws -> String {
        guard let start = page.range(of: #"<div class="alert" role="dialog" aria-labelledby="title-\#(id)""#) else {
            throw TestFailure("no alert for \(id) in \(page)")
        }
        guard let end = page.range(of: "</form></div>", range: start.upperBound..<page.endIndex) else {
            throw TestFailure("alert \(id) does not end")
        }
        return String(page[start.lowerBound..<end.upperBound])
    }

    /// The buttons of an alert: value, label and whether bold.
    static func buttons(_ alert: String) -> [(value: String, label: String, preferred: Bool, describedBy: String?)] {
        let pattern =
            #/<button type="submit" name="choice" value="([A-Za-z]+)"(?: aria-describedby="([^"]*)")?( class="preferred")?>([^<]*)</button>/#
        return alert.matches(of: pattern).map { (String($0.1), unescape(String($0.4)), $0.3 != nil, $0.2.map(String.init)) }
    }

    /// The text of the first element matching `start` (its opening tag), up to `</tag>`.
    static func text(after start: String, closing tag: String, in page: String) -> String? {
        guard let open = page.range(of: start), let end = page.range(of: "</\(tag)>", range: open.upperBound..<page.endIndex)
        else { return nil }
        return unescape(String(page[open.upperBound..<end.lowerBound]))
    }

    /// `text` with each `name` in it isolated, as the pages place an app's name in a sentence
    /// (FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE).
    static func isolating(_ name: String, in text: String) -> String {
        text.replacingOccurrences(of: name, with: "\u{2068}\(name)\u{2069}")
    }

    /// The five escapes of the pages undone.
    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The `value`s of the radio inputs in the settings form of `app` for `service`, with
    /// whether each is checked and disabled.
    static func radios(service: String, app: String, in page: String) throws -> [(value: String, checked: Bool, disabled: Bool)] {
        let form = try settingsForm(service: service, app: app, in: page)
        let pattern = #/<input type="radio" name="value" id="[^"]*" value="([A-Za-z]+)"( checked="")?( disabled="")?>/#
        return form.matches(of: pattern).map { (String($0.1), $0.2 != nil, $0.3 != nil) }
    }

    /// The settings form of `app` for `service`.
    static func settingsForm(service: String, app: String, in page: String) throws -> String {
        let action = #"action="/consent/settings/\#(service)/\#(app)""#
        guard let start = page.range(of: action), let end = page.range(of: "</form>", range: start.upperBound..<page.endIndex)
        else { throw TestFailure("no settings form \(service)/\(app) in \(page)") }
        let open = page.range(of: "<form", options: .backwards, range: page.startIndex..<start.lowerBound)
        return String(page[(open?.lowerBound ?? start.lowerBound)..<end.upperBound])
    }
}
