/// The rule of the tamper-evident audit log: each entry stores `prev_hash` (the previous entry's
/// `hash`, ``genesis`` for seq 1) and `hash`, the lowercase hex SHA-256 (FIPS 180-4) of the
/// entry's canonical encoding (``encoding(of:)``).
///
/// The canonical encoding is the ASCII tag `permission-audit-v2` followed by the 24 fields of
/// ``AuditRecord`` in the order of ``columns``, each as
/// - NULL: the byte `0x00`;
/// - INTEGER: the byte `0x01`, then the value as 8 bytes big-endian two's complement;
/// - TEXT: the byte `0x02`, then the UTF-8 byte count as 4 bytes big-endian, then the bytes.
///
/// `prev_hash` is the last field, so an entry's hash covers its predecessor's. The chain hashes
/// what is stored: for an entry about a user, `user` holds the user's pseudonym, `purpose` and
/// `detail` are NULL and `personal` holds the user id, purpose text and detail sealed under the
/// user's key
/// (``PersonalFields``), so destroying that key erases them without breaking the chain.
/// ``Format/v1`` (tag `permission-audit-v1`, no `personal`) is the format before personal
/// fields were sealed; only the migration that reseals an old log reads it. A store only
/// persists and reads ``AuditRecord``s; linking (``record(for:after:)``) and verification
/// (``AuditChainWalk``) are here, so every store keeps the same chain. The digest comes from the
/// store layer (``AuditChainHasher``): the domain imports nothing. docs/audit-chain.md shows the rule and
/// `scripts/verify-audit-chain.py` recomputes it independently.
package struct AuditChain: Sendable {
    /// A version of the canonical encoding.
    package enum Format: Sendable {
        /// Tag `permission-audit-v1`, 23 fields, personal fields in clear: logs written before
        /// personal fields were sealed.
        case v1
        /// Tag `permission-audit-v2`, 24 fields (``columns``): what every store writes.
        case v2

        /// The tag that starts the encoding.
        package var tag: [UInt8] {
            switch self {
            case .v1: Array("permission-audit-v1".utf8)
            case .v2: Array("permission-audit-v2".utf8)
            }
        }

        /// The stored column of each hashed field, in encoding order.
        package var columns: [String] {
            switch self {
            case .v1: AuditChain.columns.filter { $0 != "personal" }
            case .v2: AuditChain.columns
            }
        }
    }

    /// The tag that starts every encoding of the current format (``Format/v2``).
    package static let tag = Format.v2.tag
    /// `prev_hash` of the first entry: 64 `0`s.
    package static let genesis = String(repeating: "0", count: 64)
    /// The stored column of each hashed field, in encoding order (a store's column names).
    package static let columns = [
        "seq", "at", "actor_key", "actor_role", "action", "user", "app", "service",
        "from_status", "from_level", "from_provisional", "from_once",
        "to_status", "to_level", "to_provisional", "to_once",
        "reason", "purpose", "purpose_hash", "prompt_id", "request_id", "detail", "personal", "prev_hash",
    ]

    /// Computes SHA-256.
    let hasher: any AuditChainHasher
    /// The encoding this chain hashes.
    package let format: Format

    /// - Parameters:
    ///   - hasher: plain SHA-256.
    ///   - format: ``Format/v2`` but to read a log written before personal fields were sealed.
    package init(hasher: any AuditChainHasher, format: Format = .v2) {
        self.hasher = hasher
        self.format = format
    }

    /// The record that appends `entry` after `tip`: seq `tip.seq + 1`, linked to `tip.hash`,
    /// with its purpose hash and its own hash set, and, for an entry about a user, its personal
    /// fields sealed by `sealer` (``AuditRecord/seal(_:)``). A store persists it as it is.
    package func record(
        for entry: AuditEntry, after tip: AuditChainTip, sealer: some PersonalFieldSealer
    ) throws -> AuditRecord {
        precondition(format == .v2, "entries are appended in the current format only")
        var record = AuditRecord(
            entry: entry, seq: tip.seq + 1, purposeHash: entry.purpose.map { purposeHash(of: $0.rawValue) },
            prevHash: tip.hash)
        if let fields = record.personalFields {
            record.seal(try sealer.seal(fields, seq: record.seq))
        }
        record.hash = hash(of: record)
        return record
    }

    /// The lowercase hex SHA-256 of `record`'s canonical encoding (its stored `hash` is not part
    /// of it).
    package func hash(of record: AuditRecord) -> String {
        hex(Self.encoding(of: record, format: format))
    }

    /// The lowercase hex SHA-256 of `purpose`'s UTF-8 bytes: the `purpose_hash` that proves which
    /// purpose string a decision was made on (GDPR Art. 7(1)).
    package func purposeHash(of purpose: String) -> String {
        hex(Array(purpose.utf8))
    }

    /// The bytes ``hash(of:)`` digests, in the order of `format`'s columns.
    package static func encoding(of record: AuditRecord, format: Format = .v2) -> [UInt8] {
        var encoder = AuditChainEncoder(tag: format.tag)
        encoder.add(record.seq)
        encoder.add(record.at)
        encoder.add(record.actorKey)
        encoder.add(record.actorRole)
        encoder.add(record.action)
        encoder.add(record.user)
        encoder.add(record.app)
        encoder.add(record.service)
        encoder.add(record.fromStatus)
        encoder.add(record.fromLevel)
        encoder.add(record.fromProvisional)
        encoder.add(record.fromOnce)
        encoder.add(record.toStatus)
        encoder.add(record.toLevel)
        encoder.add(record.toProvisional)
        encoder.add(record.toOnce)
        encoder.add(record.reason)
        encoder.add(record.purpose)
        encoder.add(record.purposeHash)
        encoder.add(record.promptId)
        encoder.add(record.requestId)
        encoder.add(record.detail)
        if format == .v2 { encoder.add(record.personal) }
        encoder.add(record.prevHash)
        return encoder.bytes
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// What `key.created` records of a key's secret: the SHA-256, in hex, of the secret's own
    /// SHA-256 (what the keys' table holds) under a tag of its own. It tells whether a key's
    /// stored hash is the one it was issued with, and is never the stored hash itself, which
    /// nothing but the keys' table holds.
    package func keyFingerprint(ofSecretHash secretHash: [UInt8]) -> String {
        hex(Array("permission-key-fingerprint-v1\u{0}".utf8) + secretHash)
    }

    /// The lowercase hex of the SHA-256 of `bytes`.
    private func hex(_ bytes: [UInt8]) -> String {
        let digest = hasher.sha256(bytes)
        precondition(digest.count == 32, "an AuditChainHasher must return a 32-byte SHA-256 digest")
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(Self.digits[Int(byte >> 4)])
            out.append(Self.digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
