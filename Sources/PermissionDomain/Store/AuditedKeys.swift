/// A key the audit log does not account for: a row of the keys' table with no `key.created`
/// entry for its id, or one whose entry names another role, app or secret hash.
public struct UnauditedKey: Hashable, Sendable {
    /// Why the log does not account for the key.
    public enum Reason: String, Hashable, Sendable {
        /// No `key.created` entry names the key's id.
        case noEntry
        /// The entry names another role or app than the key holds.
        case roleDiffers
        /// The entry records the fingerprint of another secret hash than the key holds (an entry
        /// that records none is not compared).
        case secretDiffers
    }

    public let id: KeyID
    public let role: Role
    public let reason: Reason

    public init(id: KeyID, role: Role, reason: Reason) {
        self.id = id
        self.role = role
        self.reason = reason
    }
}

extension UnauditedKey {
    /// A row of the keys' table, as the check compares it.
    public struct Row: Sendable {
        public let id: KeyID
        public let role: Role
        public let app: AppID?
        public let secretHash: [UInt8]

        public init(id: KeyID, role: Role, app: AppID?, secretHash: [UInt8]) {
            self.id = id
            self.role = role
            self.app = app
            self.secretHash = secretHash
        }
    }

    /// The keys of `keys` the `key.created` entries' details (`created`, in seq order) do not
    /// account for, `fingerprint` being how the entries record a secret hash
    /// (``PermissionStore/keyFingerprint(ofSecretHash:)``): every key is issued by
    /// ``PermissionService/createKey(id:role:app:name:secretHash:actor:requestId:)``, which
    /// appends its `key.created` entry in the same transaction, so a key without one, or with
    /// another role, app or secret hash than its entry, was written around the service (a key
    /// planted in the database, which the hash chain alone cannot show: it covers the log only).
    public static func find(
        keys: [Row], created: [[String: String]], fingerprint: ([UInt8]) -> String
    ) -> [UnauditedKey] {
        var entries: [String: [String: String]] = [:]
        for detail in created {
            if let id = detail["key"], entries[id] == nil { entries[id] = detail }
        }
        return keys.compactMap { key -> UnauditedKey? in
            guard let detail = entries[key.id.rawValue] else {
                return UnauditedKey(id: key.id, role: key.role, reason: .noEntry)
            }
            if detail["role"] != key.role.rawValue || detail["app"] != key.app?.rawValue {
                return UnauditedKey(id: key.id, role: key.role, reason: .roleDiffers)
            }
            if let recorded = detail[PermissionService.secretFingerprintDetail], recorded != fingerprint(key.secretHash) {
                return UnauditedKey(id: key.id, role: key.role, reason: .secretDiffers)
            }
            return nil
        }
    }
}
