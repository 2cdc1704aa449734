/// Dense ids (0, 1, 2, ...) for distinct values, at most `limit` of them: the read cache's
/// users, apps and services (so that a record's key fits in one integer) and the distinct
/// field combinations of its records (so that a record holds one id instead of its fields).
/// Each value is stored once however many records use it. Never shrinks: the owner empties it
/// with everything that holds its ids.
struct SymbolTable<Value: Hashable> {
    private var ids: [Value: UInt32] = [:]
    /// The values by id, when kept (``init(limit:keepsValues:)``).
    private var values: [Value] = []
    private let keepsValues: Bool
    /// The most values held.
    let limit: Int

    /// - Parameters:
    ///   - limit: the most values held (at most 2^32).
    ///   - keepsValues: whether ``subscript(_:)`` can map an id back to its value (an array of
    ///     the values beside the hash table).
    init(limit: Int, keepsValues: Bool) {
        self.limit = min(max(0, limit), 1 << 32)
        self.keepsValues = keepsValues
    }

    var count: Int { ids.count }

    /// The id of `value`, nil when it has none.
    @inline(__always)
    func id(of value: Value) -> UInt32? { ids[value] }

    /// The id of `value`, given one when new; nil when it is new and the table holds `limit`
    /// values already.
    mutating func intern(_ value: Value) -> UInt32? {
        if let id = ids[value] { return id }
        guard ids.count < limit else { return nil }
        let id = UInt32(truncatingIfNeeded: ids.count)
        ids[value] = id
        if keepsValues { values.append(value) }
        return id
    }

    /// The value of `id`, which this table gave out (and keeps values).
    @inline(__always)
    subscript(id: UInt32) -> Value { values[Int(id)] }

    /// Whether `more` new values would still fit.
    func hasRoom(for more: Int) -> Bool { ids.count + more <= limit }
}
