import StoredRows

/// A statement's current row, for the decoders both stores share (``StoredColumns``).
extension Statement: StoredColumns {
    func text(_ column: Int) -> String? { string(at: Int32(column)) }
    func integer(_ column: Int) -> Int64? { optionalInt64(at: Int32(column)) }
    func bytes(_ column: Int) -> [UInt8]? { blob(at: Int32(column)) }
    func corrupt(_ table: String, _ column: String) -> any Error { StoreSession.corrupt(table, column) }
    var userColumn: String { "user" }
}
