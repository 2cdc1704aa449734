extension AuditChain {
    /// ``tag`` as text (it is ASCII).
    package static var tagText: String { String(decoding: tag, as: UTF8.self) }

    /// The hashed values of `record`, one for each of ``columns`` in their order: what
    /// ``encoding(of:)-(AuditRecord)`` encodes. An export carries them so that a verifier takes
    /// the tag, the column list and the values from the document, not from its own copy of the
    /// format.
    package static func storedValues(of record: AuditRecord) -> [AuditStoredValue] {
        func text(_ value: String?) -> AuditStoredValue { value.map { .text($0) } ?? .null }
        func integer(_ value: Int64?) -> AuditStoredValue { value.map { .integer($0) } ?? .null }
        let values: [AuditStoredValue] = [
            .integer(record.seq), .integer(record.at), text(record.actorKey), text(record.actorRole),
            text(record.action), text(record.user), text(record.app), text(record.service),
            text(record.fromStatus), text(record.fromLevel), integer(record.fromProvisional), integer(record.fromOnce),
            text(record.toStatus), text(record.toLevel), integer(record.toProvisional), integer(record.toOnce),
            text(record.reason), text(record.purpose), text(record.purposeHash), text(record.promptId),
            text(record.requestId), text(record.detail), text(record.personal), text(record.prevHash),
        ]
        precondition(values.count == columns.count, "an audit record has one stored value per hashed column")
        return values
    }

    /// The canonical encoding of `values` (the tag, then each value as ``encoding(of:)-(AuditRecord)``
    /// encodes it): for the values of a record, the bytes its hash is taken of.
    package static func encoding(of values: [AuditStoredValue]) -> [UInt8] {
        var encoder = AuditChainEncoder(tag: tag)
        for value in values {
            switch value {
            case .null: encoder.add(Optional<Int64>.none)
            case .integer(let number): encoder.add(number)
            case .text(let string): encoder.add(string)
            }
        }
        return encoder.bytes
    }
}
