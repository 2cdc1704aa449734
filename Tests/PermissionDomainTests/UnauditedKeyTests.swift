import PermissionDomain
import Testing

/// Which keys the `key.created` entries account for: the id, the role and app, and (where the
/// entry records it) the secret's hash.
@Suite struct UnauditedKeyTests {
    static let hash = [UInt8](repeating: 0xAB, count: 32)
    /// A stand-in for the store's fingerprint: what matters here is which hash it was made of.
    static func fingerprint(_ bytes: [UInt8]) -> String { "fp-" + bytes.map { String($0) }.joined(separator: ".") }
    static let hex = fingerprint(hash)

    static func row(_ id: String, _ role: Role, app: String? = nil, hash: [UInt8] = hash) throws -> UnauditedKey.Row {
        UnauditedKey.Row(id: try KeyID(id), role: role, app: try app.map { try AppID($0) }, secretHash: hash)
    }

    @Test func aKeyIssuedWithItsEntryIsAccountedFor() throws {
        let keys = [try Self.row("00000000000000a1", .admin), try Self.row("00000000000000a2", .app, app: "com.example.maps")]
        let created = [
            ["key": "00000000000000a1", "role": "admin", "name": "ops", "secretFingerprint": Self.hex],
            // An entry that records no fingerprint: the role and app are still compared.
            ["key": "00000000000000a2", "role": "app", "app": "com.example.maps", "name": "maps"],
        ]
        #expect(UnauditedKey.find(keys: keys, created: created, fingerprint: Self.fingerprint).isEmpty)
    }

    @Test func keysWrittenAroundTheServiceAreNamedWithWhy() throws {
        let keys = [
            try Self.row("00000000000000b1", .admin),
            try Self.row("00000000000000b2", .admin),
            try Self.row("00000000000000b3", .app, app: "com.example.other"),
            try Self.row("00000000000000b4", .auditor, hash: [UInt8](repeating: 0, count: 32)),
        ]
        let created = [
            ["key": "00000000000000b2", "role": "auditor", "name": "x", "secretFingerprint": Self.hex],
            ["key": "00000000000000b3", "role": "app", "app": "com.example.maps", "name": "x"],
            ["key": "00000000000000b4", "role": "auditor", "name": "x", "secretFingerprint": Self.hex],
            ["key": "00000000000000b9", "role": "admin", "name": "a key since deleted"],
        ]
        let found = UnauditedKey.find(keys: keys, created: created, fingerprint: Self.fingerprint)
        #expect(found.map(\.id.rawValue) == ["00000000000000b1", "00000000000000b2", "00000000000000b3", "00000000000000b4"])
        #expect(found.map(\.reason) == [.noEntry, .roleDiffers, .roleDiffers, .secretDiffers])
        #expect(found.map(\.role) == [.admin, .admin, .app, .auditor], "the role the key holds, not the entry's")
    }
}
