/// The answer of `GET /v1/audit/verify`: whether the audit hash chain is intact, how long the
/// intact part is, and where and why it breaks.
public struct AuditVerification: Codable, Sendable, Equatable {
    /// Why an entry breaks the chain.
    public enum Reason: String, Codable, Sendable, Equatable {
        /// The entry's content does not hash to its stored `hash`: it was edited.
        case hashMismatch
        /// The entry's `prevHash` is not the previous entry's `hash`.
        case prevMismatch
        /// The entry's seq is missing (deleted): `firstInvalidSeq` is the seq expected.
        case seqGap
    }

    /// Whether every entry verified.
    public var valid: Bool
    /// How many entries were checked (the intact ones, plus the failing one).
    public var checked: Int64
    /// The last intact entry's seq.
    public var lastSeq: Int64?
    /// The hash of the last intact entry (the chain head when valid).
    public var headHash: String?
    /// The first entry that breaks the chain, when `valid` is false.
    public var firstInvalidSeq: Int64?
    /// How many entries, from seq 1, form an intact chain.
    public var intactLength: Int64?
    /// How many entries the log holds.
    public var total: Int64?
    /// Why `firstInvalidSeq` breaks the chain.
    public var reason: Reason?
    /// The API keys the log does not account for: no `key.created` entry names them, or theirs
    /// names another role, app or secret hash. Empty when every key was issued through the API.
    public var unauditedKeys: [UnauditedKey]?

    /// A key the audit log does not account for.
    public struct UnauditedKey: Codable, Sendable, Equatable {
        /// `noEntry`, `roleDiffers` or `secretDiffers`.
        public enum Reason: String, Codable, Sendable, Equatable {
            case noEntry, roleDiffers, secretDiffers
        }

        public var id: String
        public var role: String
        public var reason: Reason

        public init(id: String, role: String, reason: Reason) {
            self.id = id
            self.role = role
            self.reason = reason
        }
    }

    public init(
        valid: Bool, checked: Int64, lastSeq: Int64? = nil, headHash: String? = nil, firstInvalidSeq: Int64? = nil,
        intactLength: Int64? = nil, total: Int64? = nil, reason: Reason? = nil, unauditedKeys: [UnauditedKey]? = nil
    ) {
        self.valid = valid
        self.checked = checked
        self.lastSeq = lastSeq
        self.headHash = headHash
        self.firstInvalidSeq = firstInvalidSeq
        self.intactLength = intactLength
        self.total = total
        self.reason = reason
        self.unauditedKeys = unauditedKeys
    }
}
