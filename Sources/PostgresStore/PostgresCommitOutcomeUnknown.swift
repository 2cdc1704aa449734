/// A `COMMIT` failed on a lost connection: the transaction may or may not have been applied, so
/// it is never run again (its writers get ``PermissionDomain/PermissionError/unavailable(why:cause:)``).
struct PostgresCommitOutcomeUnknown: Error {
    let underlying: PostgresError
}
