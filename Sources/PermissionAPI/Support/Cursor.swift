import PermissionDomain

/// Keyset positions of the listings (`nextCursor` → `after`). A cursor is the sort key of the
/// last item of a page, in the listing's own terms, so that every well-formed value is a
/// position: the next page holds the items that sort after it (byte order), whether or not an
/// item with that key exists or the server ever issued it. A listing therefore never answers
/// 400 to a cursor that matches its documented syntax (openapi.yaml, `components.parameters`):
///
/// | listing | cursor |
/// |---|---|
/// | apps | an app id |
/// | policies | a policy id |
/// | a user's prompts | a prompt id |
/// | the users of an app for a service | a user id |
/// | a user's authorizations | `<app>/<service>`: 1-255 of `A-Z a-z 0-9 . -`, `/`, a lowerCamel service id |
/// | an app's grants whose purpose changed | `<user>/<service>`: a user id, `/`, a lowerCamel service id |
enum Cursor {
    /// Longest app part of an `<app>/<service>` position (the longest app id).
    static let maximumAppLength = 255

    /// The cursor of a user's authorizations listing after `key`: `<app>/<service>`.
    static func appAndService(_ key: AuthorizationKey) -> String {
        key.app.rawValue + "/" + key.service.rawValue
    }

    /// The position in `user`'s authorizations that `cursor` (`<app>/<service>`) names.
    /// The app part need not be a registered or even a well-formed app id (e.g. `com`): it is
    /// only compared, so any value of the syntax is a position.
    /// - Throws: `APIProblem` 400 `invalid-request` naming `after` when the syntax is wrong.
    static func position(user: UserID, appAndService cursor: String) throws -> AuthorizationKey {
        let utf8 = cursor.utf8
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { throw malformed }
        let app = utf8[..<slash]
        let service = utf8[utf8.index(after: slash)...]
        guard !app.isEmpty, app.count <= maximumAppLength, app.allSatisfy(isAppPositionByte),
            isLowerCamel(service)
        else { throw malformed }
        // Checked above: ASCII of the documented syntax. Positions are compared, never stored.
        return AuthorizationKey(
            user: user, app: AppID(trusted: String(cursor[..<slash])),
            service: ServiceID(trusted: String(cursor[cursor.index(after: slash)...])))
    }

    /// The cursor of an app's listing (grants whose purpose changed) after `key`: `<user>/<service>`.
    static func userAndService(_ key: AuthorizationKey) -> String {
        key.user.rawValue + "/" + key.service.rawValue
    }

    /// The position in `app`'s grants that `cursor` (`<user>/<service>`) names. User ids have
    /// no slash, so the last one separates the parts.
    /// - Throws: `APIProblem` 400 `invalid-request` naming `after` when the syntax is wrong.
    static func position(app: AppID, userAndService cursor: String) throws -> AuthorizationKey {
        let utf8 = cursor.utf8
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")), isLowerCamel(utf8[utf8.index(after: slash)...]),
            let user = try? UserID(String(cursor[..<slash]))
        else {
            throw APIProblem.invalidParameter(
                "after", "must be <user>/<service>: a user id, a slash, and a lowerCamel service id")
        }
        return AuthorizationKey(user: user, app: app, service: ServiceID(trusted: String(cursor[cursor.index(after: slash)...])))
    }

    private static var malformed: APIProblem {
        APIProblem.invalidParameter(
            "after", "must be <app>/<service>: 1-255 of A-Z a-z 0-9 . -, a slash, and a lowerCamel service id")
    }

    /// `A-Z a-z 0-9 . -`.
    private static func isAppPositionByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    /// `^[a-z][A-Za-z0-9]{0,63}$`, the syntax of service ids (SPEC §1).
    private static func isLowerCamel(_ bytes: Substring.UTF8View) -> Bool {
        guard let first = bytes.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z"), bytes.count <= 64
        else { return false }
        return bytes.allSatisfy(isAlphanumeric)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
