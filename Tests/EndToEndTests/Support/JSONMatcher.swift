import PermissionWire

/// Compares an actual JSON value with an expected one from a document (README.md, docs/walkthrough.md), structurally.
///
/// In the expected value:
/// - the string `"<any>"` matches any value (timestamps, ids);
/// - `"<any:NAME>"` matches any value and captures it as `NAME` (a string's text, else its JSON
///   kind is refused) for later commands, which use it as `$NAME`;
/// - `"<same:NAME>"` matches only the value captured earlier as `NAME`;
/// - an object with the member `"...": "..."` may have more members in the actual value;
///   otherwise the member names must be the same;
/// - an array whose last element is `"..."` matches any array that starts with the others;
/// - numbers compare by value.
struct JSONMatcher {
    /// Values captured by `<any:NAME>` (seeded with earlier steps' captures).
    var captures: [String: String] = [:]
    /// One line per difference, with its path (`$.items[0].status`).
    var mismatches: [String] = []

    mutating func match(_ expected: JSONValue, _ actual: JSONValue, path: String = "$") {
        if case .string(let text) = expected, text.hasPrefix("<same:"), text.hasSuffix(">") {
            let name = String(text.dropFirst(6).dropLast())
            if actual != .string(captures[name] ?? "<\(name) not captured>") {
                mismatches.append(
                    "\(path): expected the value captured as \(name) (\(captures[name] ?? "none")), got \(Self.render(actual))")
            }
            return
        }
        if case .string(let text) = expected, text.hasPrefix("<any"), text.hasSuffix(">") {
            if text.hasPrefix("<any:") {
                let name = String(text.dropFirst(5).dropLast())
                guard case .string(let value) = actual else {
                    mismatches.append("\(path): expected a string to capture as \(name), got \(actual.kindDescription)")
                    return
                }
                captures[name] = value
            }
            return
        }
        switch (expected, actual) {
        case (.object(let want), .object(let got)):
            let open = want["..."] != nil
            for (key, value) in want where key != "..." {
                guard let other = got[key] else {
                    mismatches.append("\(path).\(key): missing")
                    continue
                }
                match(value, other, path: "\(path).\(key)")
            }
            if !open {
                for key in got.keys.sorted() where want[key] == nil {
                    mismatches.append("\(path).\(key): not expected (add it, or \"...\": \"...\")")
                }
            }
        case (.array(let want), .array(let got)):
            var elements = want
            let prefix = elements.last == .string("...")
            if prefix { elements.removeLast() }
            if prefix ? got.count < elements.count : got.count != elements.count {
                mismatches.append("\(path): expected \(prefix ? "at least " : "")\(elements.count) elements, got \(got.count)")
                return
            }
            for (index, element) in elements.enumerated() { match(element, got[index], path: "\(path)[\(index)]") }
        case (.number(let want), .number(let got)):
            if Double(want) != Double(got) { mismatches.append("\(path): expected \(want), got \(got)") }
        default:
            if expected != actual { mismatches.append("\(path): expected \(Self.render(expected)), got \(Self.render(actual))") }
        }
    }

    /// A short rendering of a value for messages.
    static func render(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): String(b)
        case .number(let n): n
        case .string(let s): "\"\(s)\""
        case .array(let a): "[\(a.map(render).joined(separator: ", "))]"
        case .object(let o): "{\(o.keys.sorted().map { "\"\($0)\": \(render(o[$0] ?? .null))" }.joined(separator: ", "))}"
        }
    }
}
