import Foundation
import PermissionDomain

/// Opaque keyset cursors (`nextCursor` → `after`): the key's parts joined with NUL and
/// encoded as unpadded base64url (RFC 4648 §5), so that ids with `+` or `:` survive a query
/// string unencoded.
enum Cursor {
    static func encode(_ parts: [String]) -> String {
        let joined = parts.joined(separator: "\u{0}")
        return Data(joined.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The parts of `cursor`, exactly `count` of them.
    /// - Throws: `APIProblem` 400 when the cursor was not made by `encode`.
    static func decode(_ cursor: String, count: Int) throws -> [String] {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        guard cursor.utf8.count <= 1024, let data = Data(base64Encoded: base64),
            let text = String(data: data, encoding: .utf8)
        else { throw APIProblem.invalidParameter("after", "not a cursor this server made") }
        let parts = text.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == count else { throw APIProblem.invalidParameter("after", "not a cursor this server made") }
        return parts
    }

    static func encode(_ key: AuthorizationKey) -> String {
        encode([key.user.rawValue, key.app.rawValue, key.service.rawValue])
    }

    /// - Throws: `APIProblem` 400 for a malformed cursor.
    static func authorizationKey(_ cursor: String) throws -> AuthorizationKey {
        let parts = try decode(cursor, count: 3)
        do {
            return AuthorizationKey(user: try UserID(parts[0]), app: try AppID(parts[1]), service: try ServiceID(parts[2]))
        } catch {
            throw APIProblem.invalidParameter("after", "not a cursor this server made")
        }
    }
}
