/// What a run of audit entries changed, in the terms of what a read model keeps in memory: the
/// authorization records and users' settings of the read cache, the catalogue (custom services
/// and which services have policies) and the API keys.
///
/// The rule it relies on: every change is audited in the same transaction, by an entry that
/// names what changed: an authorization record by its (user, app, service), a user's settings
/// by `settings.changed` and the user, an app's registration by `app.put` and the app, a service or policy by its action (and a key by
/// `key.*`, which only ends cached verifications sooner than their 5 s).
/// `PermissionService` writes that way (``PermissionService``'s `commit`), and a store that
/// serves replicas checks it on every write in debug builds (``unaudited(saved:appended:)``).
package struct ReadModelChanges: Sendable, Equatable {
    package var records: [AuthorizationKey] = []
    package var settingsOf: [UserID] = []
    /// Apps whose registration (purpose strings) changed.
    package var apps: [AppID] = []
    package var catalogueChanged = false
    package var keysChanged = false
    /// A change too wide to name (a user's erasure, whose entry names no user): whatever is in
    /// memory must be forgotten.
    package var everything = false
    /// A user was erased: besides ``everything``, the keys of the audit log kept unwrapped in
    /// memory are forgotten.
    package var erasure = false
    /// The last entry's seq, 0 for none.
    package var through: Int64 = 0

    package init() {}

    /// The changes of `entries`, which must follow each other without a gap.
    package init(_ entries: some Sequence<ChangeLogEntry>) {
        for entry in entries { add(entry) }
    }

    package var isEmpty: Bool {
        records.isEmpty && settingsOf.isEmpty && apps.isEmpty && !catalogueChanged && !keysChanged && !everything
    }

    package mutating func add(_ entry: ChangeLogEntry) {
        through = max(through, entry.seq)
        // Read after its user's erasure was committed (whose own entry may be past the head the
        // reader took): the record or settings it changed cannot be named, so none is kept.
        if entry.userErased { everything = true }
        switch entry.action {
        case .settingsChanged:
            if let user = entry.user { settingsOf.append(user) }
        case .appPut:
            if let app = entry.app { apps.append(app) }
        case .policyPut, .policyDeleted, .servicePut:
            catalogueChanged = true
        case .keyCreated, .keyRevoked:
            keysChanged = true
        case .userErased:
            everything = true
            erasure = true
            catalogueChanged = true  // the user's own policies went with them
        default:
            // Authorization changes, and prompt entries, which name the record they are about
            // (forgetting a record that did not change costs one read).
            if let user = entry.user, let app = entry.app, let service = entry.service {
                records.append(AuthorizationKey(user: user, app: app, service: service))
            }
        }
    }

    /// ``add(_:)``, naming at most `limit` records and users' settings: past that, the run is
    /// ``everything`` and names none (a reset of every record), so that what is collected for
    /// a long run stays small.
    package mutating func add(_ entry: ChangeLogEntry, namingAtMost limit: Int) {
        add(entry)
        guard !everything, records.count + settingsOf.count > limit else { return }
        everything = true
        records = []
        settingsOf = []
    }

    /// The changes a write made that no entry it appended accounts for, described for a
    /// failed check: a replica would keep serving the old value from memory.
    /// - Parameters:
    ///   - saved: what the write saved: records, users' settings, whether it changed the
    ///     catalogue or the keys.
    ///   - appended: the entries it appended.
    package static func unaudited(saved: ReadModelChanges, appended: ReadModelChanges) -> [String] {
        if appended.everything { return [] }  // an erasure's entry accounts for any change
        var missing: [String] = []
        if saved.everything { missing.append("everything in memory (an erasure)") }
        let records = Set(appended.records)
        for key in saved.records where !records.contains(key) {
            missing.append("authorization \(key.user.rawValue)/\(key.app.rawValue)/\(key.service.rawValue)")
        }
        let users = Set(appended.settingsOf)
        for user in saved.settingsOf where !users.contains(user) { missing.append("settings of \(user.rawValue)") }
        let apps = Set(appended.apps)
        for app in saved.apps where !apps.contains(app) { missing.append("app \(app.rawValue)") }
        if saved.catalogueChanged && !appended.catalogueChanged { missing.append("a service or policy") }
        if saved.keysChanged && !appended.keysChanged { missing.append("an API key") }
        return missing
    }
}
