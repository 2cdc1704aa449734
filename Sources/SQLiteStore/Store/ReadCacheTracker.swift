import PermissionDomain
import Synchronization

/// Keeps a ``ReadCache`` in step with the writer: which rows of `authorizations` and
/// `user_settings` each transaction changed, and which apps' registrations (`apps` and their
/// purpose strings), whatever statement changed them.
///
/// Temporary triggers on the writer connection (https://www.sqlite.org/lang_createtrigger.html)
/// hand the key of every inserted, updated or deleted row to two SQL functions of this
/// connection (``Database/addFunction(_:arguments:_:)``), which collect them in memory. Just
/// before `COMMIT` the writer takes what was collected (``willCommit(_:)``); after the commit it
/// removes those keys from the cache (``didCommit(_:)``). No write path has to remember the
/// cache, including bulk resets and future statements. A body rolled back to its savepoint
/// keeps its keys: they are removed from the cache all the same, which costs the next read of
/// them a miss and never shows a stale record. More than ``maximumTrackedChanges`` keys in one
/// transaction drop the whole cache instead.
///
/// `@unchecked Sendable`: its variables, `pending` and `collected`, are touched only on the
/// writer's queue, while it holds its connection's loan: by the ``CommitObserver`` calls and by
/// the SQL functions, which run inside the steps of the writer's statements. Debug builds check
/// both (``ownsWriter(_:)``, and each step's loan check).
final class ReadCacheTracker: CommitObserver, @unchecked Sendable {
    /// Above this many changed rows in one transaction, the cache is emptied instead.
    static let maximumTrackedChanges = 4_096

    /// Installed once on the writer connection (temporary objects live with the connection),
    /// after its two functions. A settings row is handed over with NULL app and service.
    static let installation = """
        CREATE TEMP TRIGGER read_cache_authorization_inserted AFTER INSERT ON main.authorizations BEGIN
            SELECT read_cache_changed(NEW.user, NEW.app, NEW.service);
        END;
        CREATE TEMP TRIGGER read_cache_authorization_updated AFTER UPDATE ON main.authorizations BEGIN
            SELECT read_cache_changed(OLD.user, OLD.app, OLD.service);
            SELECT read_cache_changed(NEW.user, NEW.app, NEW.service)
                WHERE NEW.user IS NOT OLD.user OR NEW.app IS NOT OLD.app OR NEW.service IS NOT OLD.service;
        END;
        CREATE TEMP TRIGGER read_cache_authorization_deleted AFTER DELETE ON main.authorizations BEGIN
            SELECT read_cache_changed(OLD.user, OLD.app, OLD.service);
        END;
        CREATE TEMP TRIGGER read_cache_settings_inserted AFTER INSERT ON main.user_settings BEGIN
            SELECT read_cache_changed(NEW.user, NULL, NULL);
        END;
        CREATE TEMP TRIGGER read_cache_settings_updated AFTER UPDATE ON main.user_settings BEGIN
            SELECT read_cache_changed(OLD.user, NULL, NULL);
            SELECT read_cache_changed(NEW.user, NULL, NULL) WHERE NEW.user IS NOT OLD.user;
        END;
        CREATE TEMP TRIGGER read_cache_settings_deleted AFTER DELETE ON main.user_settings BEGIN
            SELECT read_cache_changed(OLD.user, NULL, NULL);
        END;
        CREATE TEMP TRIGGER read_cache_app_inserted AFTER INSERT ON main.apps BEGIN
            SELECT read_cache_app_changed(NEW.id);
        END;
        CREATE TEMP TRIGGER read_cache_app_updated AFTER UPDATE ON main.apps BEGIN
            SELECT read_cache_app_changed(OLD.id);
            SELECT read_cache_app_changed(NEW.id) WHERE NEW.id IS NOT OLD.id;
        END;
        CREATE TEMP TRIGGER read_cache_app_deleted AFTER DELETE ON main.apps BEGIN
            SELECT read_cache_app_changed(OLD.id);
        END;
        CREATE TEMP TRIGGER read_cache_purpose_inserted AFTER INSERT ON main.app_purpose_strings BEGIN
            SELECT read_cache_app_changed(NEW.app);
        END;
        CREATE TEMP TRIGGER read_cache_purpose_updated AFTER UPDATE ON main.app_purpose_strings BEGIN
            SELECT read_cache_app_changed(OLD.app);
            SELECT read_cache_app_changed(NEW.app) WHERE NEW.app IS NOT OLD.app;
        END;
        CREATE TEMP TRIGGER read_cache_purpose_deleted AFTER DELETE ON main.app_purpose_strings BEGIN
            SELECT read_cache_app_changed(OLD.app);
        END;
        CREATE TEMP TRIGGER read_cache_localized_inserted AFTER INSERT ON main.app_localized_purpose_strings BEGIN
            SELECT read_cache_app_changed(NEW.app);
        END;
        CREATE TEMP TRIGGER read_cache_localized_updated AFTER UPDATE ON main.app_localized_purpose_strings BEGIN
            SELECT read_cache_app_changed(OLD.app);
            SELECT read_cache_app_changed(NEW.app) WHERE NEW.app IS NOT OLD.app;
        END;
        CREATE TEMP TRIGGER read_cache_localized_deleted AFTER DELETE ON main.app_localized_purpose_strings BEGIN
            SELECT read_cache_app_changed(OLD.app);
        END;
        """

    /// What the functions collected since the writer last took it.
    private struct Collected {
        var keys: [AuthorizationKey] = []
        var users: [UserID] = []
        var apps: Set<AppID> = []
        /// Rows of `authorizations` and `user_settings` handed over, counted past the bound.
        var rows = 0

        var isEmpty: Bool { rows == 0 && apps.isEmpty }
    }

    private enum Pending {
        case keys([AuthorizationKey], users: [UserID], apps: [AppID])
        case everything
    }

    let cache: ReadCache
    /// The writer's audit chain tip: where the entries it appended end.
    let auditChainTip: AuditChainTipCache
    /// What the transaction being committed changed. Touched only on the writer queue.
    private var pending: Pending?
    /// What the triggers handed over since the last ``willCommit(_:)``. Touched only on the
    /// writer queue.
    private var collected = Collected()

    /// Debug builds: stops unless the caller holds the loan of a writing connection (the
    /// writer queue's); `pending` and `collected` belong to it.
    @inline(__always)
    private func ownsWriter(_ database: Database) {
        #if DEBUG
        precondition(database.mode == .readWrite, "the read cache tracker is told about a reader's transaction")
        database.use.check()
        #endif
    }

    #if DEBUG
    /// Tests only: run on the writer queue after a `COMMIT`, before the cache forgets what it
    /// changed.
    let afterCommit = Mutex<(@Sendable () -> Void)?>(nil)
    #endif

    init(cache: ReadCache, auditChainTip: AuditChainTipCache) {
        self.cache = cache
        self.auditChainTip = auditChainTip
    }

    /// Registers the two functions and creates the triggers on the writer connection. The
    /// functions hold this tracker for as long as the connection lives.
    func install(on database: Database) throws {
        ownsWriter(database)
        try database.addFunction("read_cache_changed", arguments: 3) { [self] arguments in
            collected.rows += 1
            guard collected.rows <= Self.maximumTrackedChanges else { return }  // the cache is emptied
            let user = UserID(trusted: arguments.text(at: 0) ?? "")
            if let app = arguments.text(at: 1), let service = arguments.text(at: 2) {
                collected.keys.append(
                    AuthorizationKey(user: user, app: AppID(trusted: app), service: ServiceID(trusted: service)))
            } else {
                collected.users.append(user)
            }
        }
        try database.addFunction("read_cache_app_changed", arguments: 1) { [self] arguments in
            collected.apps.insert(AppID(trusted: arguments.text(at: 0) ?? ""))
        }
        try database.execute(Self.installation)
    }

    func willCommit(_ database: Database) throws {
        ownsWriter(database)
        let changes = collected
        collected = Collected()
        guard !changes.isEmpty else {
            pending = nil
            return
        }
        pending =
            changes.rows > Self.maximumTrackedChanges
            ? .everything : .keys(changes.keys, users: changes.users, apps: Array(changes.apps))
    }

    func didAttach(_ database: Database) throws {
        cache.invalidate(keys: [], users: [], publishing: try StoreSession(database: database).lastAuditSeq())
    }

    /// Removes what the transaction changed, then shows its audit entries (``ReadCache``).
    func didCommit(_ database: Database) {
        ownsWriter(database)
        defer { pending = nil }
        #if DEBUG
        afterCommit.withLock { $0 }?()
        #endif
        // The entries this writer appended end at its chain tip; another process's entries
        // before them were seen by the data_version check that precedes this call.
        let head = auditChainTip.tip?.seq ?? fileAuditHead(database) ?? 0
        switch pending {
        case nil: cache.invalidate(keys: [], users: [], publishing: head)
        case .everything: cache.removeAll(publishing: head)
        case .keys(let keys, let users, let apps): cache.invalidate(keys: keys, users: users, apps: apps, publishing: head)
        }
    }

    /// Forgets everything, and shows the file's last audit seq, back too when the file's log
    /// ends before what readers were shown (its newest entries deleted, or a restore made
    /// under the running server), as the PostgreSQL read model rewinds: the seqs after it are
    /// given out again, and a reader waiting for them must not be told they were seen.
    func didLoseTrack(_ database: Database) {
        loseTrack(database)
    }

    /// ``didLoseTrack(_:)``, saying what the file's last audit seq is (nil when it cannot be
    /// read) and whether the log went back.
    @discardableResult
    func loseTrack(_ database: Database) -> (head: Int64?, wentBack: Bool) {
        ownsWriter(database)
        pending = nil
        collected = Collected()  // covered by the clear below
        guard let head = fileAuditHead(database) else {
            cache.removeAll(publishing: 0)  // cannot tell: show nothing new
            return (nil, false)
        }
        guard head < cache.visibleAuditSeq else {
            cache.removeAll(publishing: head)
            return (head, false)
        }
        cache.reset(publishing: head)
        return (head, true)
    }

    /// The last audit seq in the file; nil when it cannot be read (the caller then shows nothing
    /// new, so that entries stay hidden rather than shown early).
    private func fileAuditHead(_ database: Database) -> Int64? {
        try? StoreSession(database: database).lastAuditSeq()
    }
}
