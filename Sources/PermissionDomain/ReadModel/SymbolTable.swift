/// Dense ids (0, 1, 2, ...) for distinct values, at most `limit` of them: the read cache's
/// users, apps and services (so that a record's key fits in one integer) and the distinct
/// field combinations of its records (so that a record holds one id instead of its fields).
/// Each value is stored once however many records use it. A table that keeps its values can
/// give an id back (``release(_:)``), and hands it out again to a later value; otherwise the
/// owner empties it with everything that holds its ids.
struct SymbolTable<Value: Hashable> {
    private var ids: [Value: UInt32] = [:]
    /// The values by id, when kept (``init(limit:keepsValues:)``).
    private var values: [Value] = []
    private let keepsValues: Bool
    /// Ids given back, to be given out again before new ones.
    private var released: [UInt32] = []
    /// The most values held.
    let limit: Int

    /// - Parameters:
    ///   - limit: the most values held (at most 2^32).
    ///   - keepsValues: whether ``subscript(_:)`` can map an id back to its value (an array of
    ///     the values beside the hash table), which ``release(_:)`` needs.
    init(limit: Int, keepsValues: Bool) {
        self.limit = min(max(0, limit), 1 << 32)
        self.keepsValues = keepsValues
    }

    /// Values held.
    var count: Int { ids.count }

    /// The id of `value`, nil when it has none.
    @inline(__always)
    func id(of value: Value) -> UInt32? { ids[value] }

    /// The id of `value`, given one when new (a released one first); nil when it is new and
    /// the table holds `limit` values already.
    mutating func intern(_ value: Value) -> UInt32? {
        if let id = ids[value] { return id }
        guard ids.count < limit else { return nil }
        let id: UInt32
        if let reused = released.popLast() {
            id = reused
            values[Int(id)] = value
        } else {
            id = UInt32(truncatingIfNeeded: ids.count)
            if keepsValues { values.append(value) }
        }
        ids[value] = id
        return id
    }

    /// Gives `id` back: its value has none until interned again, and the id goes to the next
    /// new value. Only for a table that keeps its values, and an id it holds.
    mutating func release(_ id: UInt32) {
        precondition(keepsValues, "only a table that keeps its values can find the value of an id it releases")
        let value = values[Int(id)]
        precondition(ids[value] == id, "an id is released once, while it is given out")
        ids.removeValue(forKey: value)
        released.append(id)
    }

    /// The value of `id`, which this table gave out (and keeps values).
    @inline(__always)
    subscript(id: UInt32) -> Value { values[Int(id)] }

    /// Whether `more` new values would still fit.
    func hasRoom(for more: Int) -> Bool { ids.count + more <= limit }
}
