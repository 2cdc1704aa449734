/// Thrown by a store's read that cannot be answered from memory when it runs where nothing may
/// wait (an event loop): the read would need the database, and a round trip there would stall
/// every connection the loop serves. Nothing was read or changed; the caller runs the read again
/// where waiting is allowed (the API hands the request to a worker thread).
///
/// It happens when a status read was sent to the loop because
/// ``PermissionStore/answersFromMemory(user:app:service:)`` said yes, and memory no longer holds
/// the answer when the read runs: another replica's write made the record's entry go, or the
/// read model turned stale.
public struct ReadMustWait: Error, Sendable, CustomStringConvertible {
    public init() {}

    public var description: String { "a read that needs the database ran where nothing may wait" }
}
