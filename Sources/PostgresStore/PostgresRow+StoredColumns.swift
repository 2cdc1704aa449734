import StoredRows

/// A result row, for the decoders both stores share (``StoredColumns``).
extension PostgresRow: StoredColumns {
    func text(_ column: Int) -> String? { optionalString(at: column) }
    func integer(_ column: Int) throws -> Int64? { try optionalInt64(at: column) }
    func bytes(_ column: Int) throws -> [UInt8]? { try optionalBytes(at: column) }
    func corrupt(_ table: String, _ column: String) -> any Error { PostgresSession.corrupt(table, column) }
    var userColumn: String { "user_id" }
}
