import HTTPCore
import PermissionDomain

/// The conditional request fields of RFC 9110 §13.1 over our strong entity-tags.
enum EntityTags {
    /// The `If-Match` precondition (§13.1.1), or nil when the field is absent.
    /// - Throws: `APIProblem` 400 for a malformed field.
    static func ifMatch(_ headers: HTTPHeaders) throws -> ETagCondition? {
        try condition(headers, field: "If-Match")
    }

    /// The `If-None-Match` list of a write (§13.1.2; `*` as ``ETagCondition/any``), or nil when
    /// the field is absent: the write is refused (412) when it names the current entity-tag.
    /// - Throws: `APIProblem` 400 for a malformed field.
    static func ifNoneMatch(_ headers: HTTPHeaders) throws -> ETagCondition? {
        try condition(headers, field: "If-None-Match")
    }

    /// The entity-tag list of `field` (`*` as ``ETagCondition/any``), nil when absent.
    private static func condition(_ headers: HTTPHeaders, field: String) throws -> ETagCondition? {
        guard headers.contains(field) else { return nil }
        let values = headers.values(for: field)
        guard !values.isEmpty else { return nil }
        let tags = try list(values, field: field)
        return tags.contains("*") ? .any : .tags(tags)
    }

    /// The preconditions of a write on a resource without entity-tags (a policy, an app, a
    /// custom service): `If-Match: *` (it must exist) and `If-None-Match: *` (it must not),
    /// checked by the service in its transaction; nil when neither is sent.
    /// - Throws: `APIProblem` 412 for `If-Match` with entity-tags (the resource has none, so
    ///   none can match, §13.1.1), 400 for a malformed field. `If-None-Match` with entity-tags
    ///   holds (none matches) and is ignored.
    static func existence(_ headers: HTTPHeaders) throws -> ExistenceCondition? {
        var condition = ExistenceCondition()
        if let ifMatch = try ifMatch(headers) {
            guard case .any = ifMatch else { throw noTags }
            condition.mustExist = true
        }
        if case .any = try ifNoneMatch(headers) { condition.mustNotExist = true }
        return condition.mustExist || condition.mustNotExist ? condition : nil
    }

    /// For a write whose target has no entity-tags and whose existence the request does not
    /// decide (an action such as a decision or a reset, a key's deletion): `If-Match` with
    /// entity-tags is 412, since none can match (§13.1.1); `*` and `If-None-Match` are left as
    /// they are (the target of an action exists).
    /// - Throws: `APIProblem` 412, or 400 for a malformed field.
    static func refuseTags(_ headers: HTTPHeaders) throws {
        guard let ifMatch = try ifMatch(headers), case .tags = ifMatch else { return }
        throw noTags
    }

    private static var noTags: APIProblem {
        APIProblem(
            .preconditionFailed,
            "If-Match names entity-tags, and this resource has none, so none matches (RFC 9110 §13.1.1); only If-Match: * "
                + "can hold here. Nothing was changed.")
    }

    /// Whether `If-None-Match` (§13.1.2) matches `etag` by weak comparison, so that the
    /// answer is 304.
    /// - Throws: `APIProblem` 400 for a malformed field.
    static func noneMatchHits(_ headers: HTTPHeaders, etag: String) throws -> Bool {
        // The hot path: without the field, one lookup and no allocation (``condition(_:field:)``).
        try ifNoneMatch(headers)?.matchesWeakly(etag) ?? false
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
}
