import Foundation

/// The `detail` column of audit entries: a flat string-to-string JSON object with sorted keys
/// (RFC 8259), so that SQLite's JSON functions can query it (https://www.sqlite.org/json1.html).
/// Encoding is hand-written (no `JSONEncoder` on the write path); decoding uses
/// `JSONSerialization` and rejects anything but a string-valued object.
package enum DetailJSON {
    /// Encodes `detail`; nil for an empty one, which is stored as NULL.
    package static func encode(_ detail: [String: String]) -> String? {
        guard !detail.isEmpty else { return nil }
        var text = "{"
        for (index, key) in detail.keys.sorted().enumerated() {
            if index > 0 { text += "," }
            appendString(key, to: &text)
            text += ":"
            appendString(detail[key] ?? "", to: &text)
        }
        text += "}"
        return text
    }

    /// Decodes a stored object; nil when `text` is not a string-valued JSON object.
    package static func decode(_ text: String) -> [String: String]? {
        do {
            return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        } catch {
            return nil  // the caller reports the column as corrupt
        }
    }

    /// Appends `value` as a JSON string (RFC 8259 §7): quote, backslash and controls escaped.
    private static func appendString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}
