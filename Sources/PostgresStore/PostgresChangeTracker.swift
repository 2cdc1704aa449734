import PermissionDomain
import Synchronization

/// What one write body saved and what audit entries it appended, so that the store can check,
/// before the commit, that every change a read model keeps in memory is audited by an entry
/// naming it (``ReadModelChanges/unaudited(saved:appended:)``): other replicas learn of changes
/// only through those entries, and would go on serving the old value from memory otherwise.
/// (API keys are not in a read model: a replica's verified keys expire within 5 s, and the
/// `key.*` entries only end them sooner.)
///
/// One per write body, used by that body's thread only; a `Mutex` keeps it `Sendable` at the
/// cost of an uncontended lock per save.
final class PostgresChangeTracker: Sendable {
    private struct State {
        var saved = ReadModelChanges()
        var appended = ReadModelChanges()
    }

    private let state = Mutex(State())

    func saved(_ key: AuthorizationKey) { state.withLock { $0.saved.records.append(key) } }
    func savedSettings(of user: UserID) { state.withLock { $0.saved.settingsOf.append(user) } }
    func savedApp(_ id: AppID) { state.withLock { $0.saved.apps.append(id) } }
    func changedCatalogue() { state.withLock { $0.saved.catalogueChanged = true } }
    func erasedEverything() { state.withLock { $0.saved.everything = true } }
    func appended(_ entry: ChangeLogEntry) { state.withLock { $0.appended.add(entry) } }

    /// The last seq the body appended; 0 when it appended nothing.
    var lastAppended: Int64 { state.withLock { $0.appended.through } }

    /// Changes that no appended entry accounts for (empty when the body kept the rule).
    var unaudited: [String] {
        state.withLock { ReadModelChanges.unaudited(saved: $0.saved, appended: $0.appended) }
    }
}
