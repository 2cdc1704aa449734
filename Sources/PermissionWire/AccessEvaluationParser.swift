/// Reads AuthZEN request bodies (Authorization API 1.0 §6.1, §7.1) without Foundation: the
/// bytes through `StrictJSON` (size, UTF-8, nesting, duplicates, syntax), then the members by
/// hand, each failure a `WireDecodingError` naming its JSON Pointer. Members outside the
/// specification are refused (`unknown-member`), as on every other body; `context` and
/// `properties` must be objects and are not used.
public enum AccessEvaluationParser {
    /// The body of `POST /access/v1/evaluation`: `subject`, `action` and `resource` required.
    /// - Throws: `WireDecodingError`.
    public static func single(
        _ bytes: [UInt8], limits: StrictJSON.Limits = StrictJSON.Limits()
    ) throws(WireDecodingError)
        -> AccessEvaluationRequest
    {
        let members = try object(try StrictJSON.parse(bytes, limits: limits), at: [])
        if members.count > (members["context"] == nil ? 3 : 4) || members["subject"] == nil || members["action"] == nil
            || members["resource"] == nil
        {
            try refuseUnknown(members, allowed: tupleKeys, at: [])
        }
        let tuple = try self.tuple(members, at: [])
        guard let subject = tuple.subject else { throw missing(["subject"]) }
        guard let action = tuple.action else { throw missing(["action"]) }
        guard let resource = tuple.resource else { throw missing(["resource"]) }
        return AccessEvaluationRequest(subject: subject, action: action, resource: resource)
    }

    /// The body of `POST /access/v1/evaluations`: every member optional here; the defaults and
    /// what each item then lacks are the caller's to check.
    /// - Throws: `WireDecodingError`.
    public static func batch(
        _ bytes: [UInt8], limits: StrictJSON.Limits = StrictJSON.Limits()
    ) throws(WireDecodingError)
        -> AccessEvaluationsRequest
    {
        let members = try object(try StrictJSON.parse(bytes, limits: limits), at: [])
        try refuseUnknown(members, allowed: batchKeys, at: [])
        let tuple = try self.tuple(members, at: [])
        var request = AccessEvaluationsRequest(subject: tuple.subject, action: tuple.action, resource: tuple.resource)
        if let value = members["evaluations"] {
            guard case .array(let elements) = value else {
                throw invalid(["evaluations"], "expected an array, found \(value.kindDescription)")
            }
            var items: [AccessEvaluationItem] = []
            items.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                let path = ["evaluations", String(index)]
                let item = try object(element, at: path)
                try refuseUnknown(item, allowed: tupleKeys, at: path)
                let parsed = try self.tuple(item, at: path)
                items.append(AccessEvaluationItem(subject: parsed.subject, action: parsed.action, resource: parsed.resource))
            }
            request.evaluations = items
        }
        if let value = members["options"] {
            let options = try object(value, at: ["options"])
            try refuseUnknown(options, allowed: ["evaluations_semantic"], at: ["options"])
            request.options = AccessEvaluationsOptions(
                evaluationsSemantic: try options["evaluations_semantic"].map { value throws(WireDecodingError) in
                    try string(value, at: ["options", "evaluations_semantic"])
                })
        }
        return request
    }

    private static let tupleKeys: Set<String> = ["subject", "action", "resource", "context"]
    private static let batchKeys: Set<String> = tupleKeys.union(["evaluations", "options"])

    /// The subject, action and resource present in `members` (checking `context` is an object).
    private static func tuple(
        _ members: [String: JSONValue], at path: [String]
    ) throws(WireDecodingError)
        -> (subject: AccessEntity?, action: AccessAction?, resource: AccessEntity?)
    {
        // Paths are built only for an error: the success path allocates no pointer.
        if let context = members["context"], context.objectValue == nil {
            throw invalid(path + ["context"], "expected an object, found \(context.kindDescription)")
        }
        var subject: AccessEntity?
        if let value = members["subject"] { subject = try entity(value, at: path, "subject") }
        var resource: AccessEntity?
        if let value = members["resource"] { resource = try entity(value, at: path, "resource") }
        var action: AccessAction?
        if let value = members["action"] {
            guard let members = value.objectValue else {
                throw invalid(path + ["action"], "expected an object, found \(value.kindDescription)")
            }
            if members.count > (members["properties"] == nil ? 1 : 2) || members["name"] == nil {
                try refuseUnknown(members, allowed: actionKeys, at: path + ["action"])
            }
            if let properties = members["properties"], properties.objectValue == nil {
                throw invalid(path + ["action", "properties"], "expected an object, found \(properties.kindDescription)")
            }
            guard let name = members["name"] else { throw missing(path + ["action", "name"]) }
            guard let text = name.stringValue else {
                throw invalid(path + ["action", "name"], "expected a string, found \(name.kindDescription)")
            }
            action = AccessAction(name: text)
        }
        return (subject, action, resource)
    }

    private static let actionKeys: Set<String> = ["name", "properties"]
    private static let entityKeys: Set<String> = ["type", "id", "properties"]

    private static func entity(
        _ value: JSONValue, at prefix: [String], _ name: String
    ) throws(WireDecodingError)
        -> AccessEntity
    {
        guard let members = value.objectValue else {
            throw invalid(prefix + [name], "expected an object, found \(value.kindDescription)")
        }
        if members.count > (members["properties"] == nil ? 2 : 3) {
            try refuseUnknown(members, allowed: entityKeys, at: prefix + [name])
        }
        if let properties = members["properties"], properties.objectValue == nil {
            throw invalid(prefix + [name, "properties"], "expected an object, found \(properties.kindDescription)")
        }
        guard let type = members["type"] else {
            try refuseUnknown(members, allowed: entityKeys, at: prefix + [name])
            throw missing(prefix + [name, "type"])
        }
        guard let id = members["id"] else {
            try refuseUnknown(members, allowed: entityKeys, at: prefix + [name])
            throw missing(prefix + [name, "id"])
        }
        guard let typeText = type.stringValue else {
            throw invalid(prefix + [name, "type"], "expected a string, found \(type.kindDescription)")
        }
        guard let idText = id.stringValue else {
            throw invalid(prefix + [name, "id"], "expected a string, found \(id.kindDescription)")
        }
        return AccessEntity(type: typeText, id: idText)
    }

    private static func object(_ value: JSONValue, at path: [String]) throws(WireDecodingError) -> [String: JSONValue] {
        guard let members = value.objectValue else { throw invalid(path, "expected an object, found \(value.kindDescription)") }
        return members
    }

    private static func string(_ value: JSONValue, at path: [String]) throws(WireDecodingError) -> String {
        guard let text = value.stringValue else { throw invalid(path, "expected a string, found \(value.kindDescription)") }
        return text
    }

    private static func refuseUnknown(
        _ members: [String: JSONValue], allowed: Set<String>, at path: [String]
    )
        throws(WireDecodingError)
    {
        // The smallest unknown name, so that the answer does not depend on hashing order.
        var unknown: String?
        for name in members.keys where !allowed.contains(name) {
            if unknown.map({ name < $0 }) ?? true { unknown = name }
        }
        if let unknown {
            throw WireDecodingError(
                kind: .unknownMember, path: WireDecodingError.pointer(path + [unknown]), message: "unknown member '\(unknown)'")
        }
    }

    private static func missing(_ path: [String]) -> WireDecodingError {
        invalid(path, "required member is missing")
    }

    private static func invalid(_ path: [String], _ message: String) -> WireDecodingError {
        WireDecodingError(kind: .invalidValue, path: WireDecodingError.pointer(path), message: message)
    }
}
