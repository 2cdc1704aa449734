/// The target database of a copy already holds data; a copy only fills an empty one.
package struct PostgresCopyTargetNotEmpty: Error, CustomStringConvertible {
    /// The tables that hold rows.
    package let tables: [String]

    package var description: String {
        "the target database is not empty (rows in \(tables.joined(separator: ", "))); copy only fills an empty database"
    }
}
