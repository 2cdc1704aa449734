import Synchronization

extension PreparedStatement {
    private static let cache = Mutex<[String: PreparedStatement]>([:])

    /// The one statement named for `sql`, for SQL assembled from a fixed set of terms (the
    /// filters of a listing): every distinct text is named once per process, like a
    /// `static let`, so the number of statements stays bounded by the number of filter shapes.
    static func cached(_ sql: String) -> PreparedStatement {
        cache.withLock { cache in
            if let statement = cache[sql] { return statement }
            let statement = PreparedStatement(sql)
            cache[sql] = statement
            return statement
        }
    }
}
