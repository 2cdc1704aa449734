/// The result of a create-or-replace (`PUT`): the stored value, and whether it was new, which
/// decides between 201 Created and 200 OK (RFC 9110 §9.3.4).
public struct Upserted<Value: Sendable>: Sendable {
    public let value: Value
    /// No value with this id existed when the write transaction began.
    public let created: Bool

    public init(value: Value, created: Bool) {
        self.value = value
        self.created = created
    }
}
