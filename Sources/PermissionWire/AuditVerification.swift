/// The answer of `GET /v1/audit/verify`: whether the audit hash chain is intact.
public struct AuditVerification: Codable, Sendable, Equatable {
    public var valid: Bool
    /// How many entries were checked.
    public var checked: Int64
    /// The last entry checked.
    public var lastSeq: Int64?
    /// The hash of the last entry checked (the chain head).
    public var headHash: String?
    /// The first entry whose hash does not match, when `valid` is false.
    public var firstInvalidSeq: Int64?

    public init(valid: Bool, checked: Int64, lastSeq: Int64? = nil, headHash: String? = nil, firstInvalidSeq: Int64? = nil) {
        self.valid = valid
        self.checked = checked
        self.lastSeq = lastSeq
        self.headHash = headHash
        self.firstInvalidSeq = firstInvalidSeq
    }
}
