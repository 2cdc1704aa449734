/// A value of one of SQLite's storage classes (https://www.sqlite.org/datatype3.html), for
/// statements whose parameters are assembled at run time (e.g. optional query filters).
package enum SQLValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}
