/// A fragment of HTML whose text was escaped on the way in: the pages are built only from
/// these, so user data (a user id, an app's name, a purpose string) can never become markup.
/// The one place text is escaped (HTML Living Standard §13.1.2.6, §13.3: `&`, `<`, `>`, `"`,
/// `'`), for element content and quoted attribute values alike.
struct HTML: Sendable, Equatable {
    /// The markup.
    let rendered: String

    private init(markup: String) { rendered = markup }

    /// `text`, escaped.
    init(_ text: String) { rendered = Self.escape(text) }

    /// An element `<name attributes>content</name>`; attribute values are escaped.
    static func element(
        _ name: StaticString, _ attributes: KeyValuePairs<StaticString, String> = [:], _ content: HTML...
    ) -> HTML {
        element(name, attributes, content)
    }

    /// An element with `content` given as an array.
    static func element(
        _ name: StaticString, _ attributes: KeyValuePairs<StaticString, String>, _ content: [HTML]
    )
        -> HTML
    {
        var markup = "<\(name)"
        for (attribute, value) in attributes { markup += " \(attribute)=\"\(escape(value))\"" }
        markup += ">" + content.map(\.rendered).joined() + "</\(name)>"
        return HTML(markup: markup)
    }

    /// An element whose attributes are decided at run time (`checked`, `disabled`, `lang`
    /// when there is one): `attributes` in order, values escaped; a boolean attribute is given
    /// the empty value (HTML Living Standard §2.3.2).
    static func element(_ name: StaticString, attributes: [(StaticString, String)], _ content: [HTML]) -> HTML {
        HTML(markup: "<\(name)" + rendered(attributes) + ">" + content.map(\.rendered).joined() + "</\(name)>")
    }

    /// A void element with attributes decided at run time.
    static func void(_ name: StaticString, attributes: [(StaticString, String)]) -> HTML {
        HTML(markup: "<\(name)" + rendered(attributes) + ">")
    }

    private static func rendered(_ attributes: [(StaticString, String)]) -> String {
        attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }

    /// A void element (`<input ...>`, `<meta ...>`, `<link ...>`).
    static func void(_ name: StaticString, _ attributes: KeyValuePairs<StaticString, String>) -> HTML {
        var markup = "<\(name)"
        for (attribute, value) in attributes { markup += " \(attribute)=\"\(escape(value))\"" }
        return HTML(markup: markup + ">")
    }

    /// Fragments one after another.
    static func join(_ parts: [HTML]) -> HTML { HTML(markup: parts.map(\.rendered).joined()) }

    /// The document type declaration (HTML Living Standard §13.1.1).
    static let doctype = HTML(markup: "<!DOCTYPE html>")

    /// `text` with the five characters that can end content or an attribute value replaced.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
