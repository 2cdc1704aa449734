import HTTPCore
import PermissionDomain

/// The conditional request fields of RFC 9110 §13.1 over our strong entity-tags.
enum EntityTags {
    /// The `If-Match` precondition (§13.1.1), or nil when the field is absent.
    /// - Throws: `APIProblem` 400 for a malformed field.
    static func ifMatch(_ headers: HTTPHeaders) throws -> ETagCondition? {
        guard headers.contains("If-Match") else { return nil }
        let values = headers.values(for: "If-Match")
        guard !values.isEmpty else { return nil }
        let tags = try list(values, field: "If-Match")
        return tags.contains("*") ? .any : .tags(tags)
    }

    /// Whether `If-None-Match` (§13.1.2) matches `etag` by weak comparison, so that the
    /// answer is 304.
    /// - Throws: `APIProblem` 400 for a malformed field.
    static func noneMatchHits(_ headers: HTTPHeaders, etag: String) throws -> Bool {
        guard headers.contains("If-None-Match") else { return false }  // the hot path: no allocation
        let values = headers.values(for: "If-None-Match")
        guard !values.isEmpty else { return false }
        for tag in try list(values, field: "If-None-Match") {
            if tag == "*" || opaque(tag) == opaque(etag) { return true }
        }
        return false
    }

    /// The entity-tags of a comma-separated list (`#entity-tag`, RFC 9110 §5.6.1, §8.8.3):
    /// `"x"`, `W/"x"` or `*`, with optional whitespace around the commas.
    static func list(_ values: [String], field: String) throws -> [String] {
        var tags: [String] = []
        for value in values {
            var rest = Substring(value)
            while true {
                rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
                if rest.isEmpty { break }
                if rest.hasPrefix("*") {
                    tags.append("*")
                    rest = rest.dropFirst()
                    continue
                }
                let weak = rest.hasPrefix("W/")
                let body = weak ? rest.dropFirst(2) : rest
                guard body.hasPrefix("\""), let close = body.dropFirst().firstIndex(of: "\"") else {
                    throw APIProblem.invalidParameter(field, "expected entity-tags such as \"3-0123456789abcdef\" or *")
                }
                tags.append((weak ? "W/" : "") + String(body[body.startIndex...close]))
                rest = body[body.index(after: close)...]
            }
        }
        return tags
    }

    /// The opaque-tag with any weakness indicator removed.
    private static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }
}
