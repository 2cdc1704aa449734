/// No pooled connection became free within the pool's checkout timeout.
struct PostgresPoolTimeout: Error, CustomStringConvertible {
    /// The pool's size.
    let capacity: Int
    /// How long the checkout waited, in seconds.
    let seconds: Double

    var description: String {
        "every one of the \(capacity) PostgreSQL connections stayed busy for \(seconds) s"
    }
}
