public import Foundation

/// A registered app and its purpose strings, keyed by the real Info.plist key names (SPEC §4 Apps).
public struct App: Hashable, Sendable {
    public let id: AppID
    /// A display name: 1-200 characters, no control characters.
    public let name: String
    public let purposeStrings: [String: PurposeString]
    public let updatedAt: Date

    /// Validates the name and the keys (1-128 characters of `A-Z a-z 0-9 _ . -`, at most 64 keys).
    /// - Throws: `PermissionError.invalidArgument`.
    public init(id: AppID, name: String, purposeStrings: [String: PurposeString], updatedAt: Date) throws(PermissionError) {
        guard IdentifierSyntax.isDisplayText(name, maxCount: 200) else {
            throw .invalidArgument(field: "name", why: "must be 1-200 characters without control characters")
        }
        guard purposeStrings.count <= 64 else {
            throw .invalidArgument(field: "purposeStrings", why: "at most 64 keys")
        }
        for key in purposeStrings.keys where !Self.isValidPurposeKey(key) {
            throw .invalidArgument(field: "purposeStrings", why: "\(key) is not a valid Info.plist key")
        }
        self.init(trusted: id, name: name, purposeStrings: purposeStrings, updatedAt: updatedAt)
    }

    /// Builds an app already validated (read back from the store).
    package init(trusted id: AppID, name: String, purposeStrings: [String: PurposeString], updatedAt: Date) {
        self.id = id
        self.name = name
        self.purposeStrings = purposeStrings
        self.updatedAt = updatedAt.truncatedToMilliseconds
    }

    /// An Info.plist key: 1-128 characters of `A-Z a-z 0-9 _ . -`.
    public static func isValidPurposeKey(_ key: String) -> Bool {
        var count = 0
        for byte in key.utf8 {
            count += 1
            guard count <= 128 else { return false }
            guard byte == 0x5F || byte == 0x2E || byte == 0x2D || IdentifierSyntax.isAlphanumeric(byte) else {
                return false
            }
        }
        return count > 0
    }
}
