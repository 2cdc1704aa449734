import ByteText
import Foundation

/// The `detail` column of audit entries: a flat string-to-string JSON object with sorted keys
/// (RFC 8259), so that SQLite's JSON functions can query it (https://www.sqlite.org/json1.html).
/// Encoding is hand-written (no `JSONEncoder` on the write path), its strings escaped in the
/// `minimal` style: these bytes are hashed into the audit chain, so they must never change.
/// Decoding uses `JSONSerialization` and rejects anything but a string-valued object.
package enum DetailJSON {
    /// Encodes `detail`; nil for an empty one, which is stored as NULL.
    package static func encode(_ detail: [String: String]) -> String? {
        guard !detail.isEmpty else { return nil }
        let members = detail.sorted { $0.key < $1.key }
        return ByteCursor.string { json in
            json.literal("{")
            for (index, member) in members.enumerated() {
                if index > 0 { json.literal(",") }
                json.jsonString(member.key, style: .minimal)
                json.literal(":")
                json.jsonString(member.value, style: .minimal)
            }
            json.literal("}")
        }
    }

    /// Decodes a stored object; nil when `text` is not a string-valued JSON object.
    package static func decode(_ text: String) -> [String: String]? {
        do {
            return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        } catch {
            return nil  // the caller reports the column as corrupt
        }
    }
}
