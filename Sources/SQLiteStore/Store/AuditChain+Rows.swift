/// The chain over stored rows: the migration's backfill and the verifier read the columns of
/// ``AuditChain/columns`` (then `hash`) and encode them as they are stored.
extension AuditChain {
    /// `SELECT` list: the hashed columns in encoding order, then `hash` (index 23).
    static let selectList = (columns + ["hash"]).joined(separator: ", ")
    static let purposeIndex: Int32 = 17
    static let purposeHashIndex: Int32 = 18
    static let prevHashIndex: Int32 = 22
    static let hashIndex: Int32 = 23

    /// The hash of the row `statement` is on (a query of ``selectList``).
    /// - Parameters:
    ///   - statement: positioned on a row.
    ///   - replacing: the `purpose_hash` and `prev_hash` to encode instead of the stored ones
    ///     (the backfill computes them); nil to encode the row as stored (verification).
    static func hash(ofRow statement: Statement, replacing: (purposeHash: String?, prevHash: String)? = nil) -> String {
        var encoder = Encoder()
        for (offset, column) in columns.enumerated() {
            let index = Int32(offset)
            if let replacing, index == purposeHashIndex {
                encoder.add(replacing.purposeHash)
            } else if let replacing, index == prevHashIndex {
                encoder.add(replacing.prevHash)
            } else if statement.isNull(at: index) {
                encoder.add(nil as Int64?)
            } else if integerColumns.contains(column) {
                encoder.add(statement.int64(at: index))
            } else {
                encoder.add(statement.string(at: index))
            }
        }
        return encoder.hash()
    }
}
