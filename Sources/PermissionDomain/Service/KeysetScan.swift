/// One page of a keyset-paged listing whose filter is applied after reading (the effective
/// status of an authorization, the effective state of a prompt): rows are read in key order
/// after a cursor, at most `budget` of them, until `limit` are kept, so the page may be short
/// while `nextAfter` is set. The store is never asked for more rows than the page can still
/// take, so every row read is consumed and the cursor is exact.
enum KeysetScan {
    /// - Parameters:
    ///   - after: the cursor to continue from; nil for the first page.
    ///   - limit: the most items kept (at least 1).
    ///   - budget: the most rows read.
    ///   - read: reads at most the given number of rows after the given cursor, in key order.
    ///   - key: a row's cursor.
    ///   - keep: the item a row contributes, or nil when the filter drops it.
    /// - Returns: the items kept, and the cursor to continue from (nil when the rows ran out).
    static func page<Row, Key, Item>(
        after: Key?, limit: Int, budget: Int,
        read: (_ after: Key?, _ limit: Int) throws -> [Row],
        key: (Row) -> Key,
        keep: (Row) throws -> Item?
    ) throws -> (items: [Item], nextAfter: Key?) {
        var items: [Item] = []
        var cursor = after
        var scanned = 0
        while items.count < limit, scanned < budget {
            let want = min(limit - items.count, budget - scanned)
            let rows = try read(cursor, want)
            for row in rows {
                cursor = key(row)
                scanned += 1
                if let item = try keep(row) { items.append(item) }
            }
            if rows.count < want { return (items, nil) }
        }
        return (items, cursor)
    }
}
