import PermissionDomain
import Synchronization

/// Keeps a ``ReadCache`` in step with the writer: which rows of `authorizations` and
/// `user_settings` each transaction changed, and which apps' registrations (`apps` and their
/// purpose strings), whatever statement changed them.
///
/// Temporary triggers on the writer connection (https://www.sqlite.org/lang_createtrigger.html)
/// copy the key of every inserted, updated or deleted row into a temporary table, inside the
/// transaction: a body rolled back to its savepoint takes its keys with it, and so does a batch
/// that fails. Just before `COMMIT` the writer reads and empties that table
/// (``willCommit(_:)``); after the commit it removes those keys from the cache
/// (``didCommit(_:)``). No write path has to remember the cache, including bulk resets and
/// future statements. More than ``maximumTrackedChanges`` keys in one transaction drop the
/// whole cache instead.
///
/// `@unchecked Sendable`: its one variable, `pending`, is touched only by the ``CommitObserver``
/// calls, which the writer makes holding its connection's loan; each of them checks that
/// (``ownsWriter(_:)``) in debug builds.
final class ReadCacheTracker: CommitObserver, @unchecked Sendable {
    /// Above this many changed rows in one transaction, the cache is emptied instead.
    static let maximumTrackedChanges = 4_096

    /// Installed once on the writer connection (temporary objects live with the connection).
    /// A settings row is recorded with NULL app and service.
    static let installation = """
        CREATE TEMP TABLE read_cache_changes (user TEXT NOT NULL, app TEXT, service TEXT);
        CREATE TEMP TRIGGER read_cache_authorization_inserted AFTER INSERT ON main.authorizations BEGIN
            INSERT INTO read_cache_changes VALUES (NEW.user, NEW.app, NEW.service);
        END;
        CREATE TEMP TRIGGER read_cache_authorization_updated AFTER UPDATE ON main.authorizations BEGIN
            INSERT INTO read_cache_changes VALUES (OLD.user, OLD.app, OLD.service);
            INSERT INTO read_cache_changes SELECT NEW.user, NEW.app, NEW.service
                WHERE NEW.user IS NOT OLD.user OR NEW.app IS NOT OLD.app OR NEW.service IS NOT OLD.service;
        END;
        CREATE TEMP TRIGGER read_cache_authorization_deleted AFTER DELETE ON main.authorizations BEGIN
            INSERT INTO read_cache_changes VALUES (OLD.user, OLD.app, OLD.service);
        END;
        CREATE TEMP TRIGGER read_cache_settings_inserted AFTER INSERT ON main.user_settings BEGIN
            INSERT INTO read_cache_changes VALUES (NEW.user, NULL, NULL);
        END;
        CREATE TEMP TRIGGER read_cache_settings_updated AFTER UPDATE ON main.user_settings BEGIN
            INSERT INTO read_cache_changes VALUES (OLD.user, NULL, NULL);
            INSERT INTO read_cache_changes SELECT NEW.user, NULL, NULL WHERE NEW.user IS NOT OLD.user;
        END;
        CREATE TEMP TRIGGER read_cache_settings_deleted AFTER DELETE ON main.user_settings BEGIN
            INSERT INTO read_cache_changes VALUES (OLD.user, NULL, NULL);
        END;
        CREATE TEMP TABLE read_cache_app_changes (app TEXT NOT NULL);
        CREATE TEMP TRIGGER read_cache_app_inserted AFTER INSERT ON main.apps BEGIN
            INSERT INTO read_cache_app_changes VALUES (NEW.id);
        END;
        CREATE TEMP TRIGGER read_cache_app_updated AFTER UPDATE ON main.apps BEGIN
            INSERT INTO read_cache_app_changes VALUES (OLD.id);
            INSERT INTO read_cache_app_changes SELECT NEW.id WHERE NEW.id IS NOT OLD.id;
        END;
        CREATE TEMP TRIGGER read_cache_app_deleted AFTER DELETE ON main.apps BEGIN
            INSERT INTO read_cache_app_changes VALUES (OLD.id);
        END;
        CREATE TEMP TRIGGER read_cache_purpose_inserted AFTER INSERT ON main.app_purpose_strings BEGIN
            INSERT INTO read_cache_app_changes VALUES (NEW.app);
        END;
        CREATE TEMP TRIGGER read_cache_purpose_updated AFTER UPDATE ON main.app_purpose_strings BEGIN
            INSERT INTO read_cache_app_changes VALUES (OLD.app);
            INSERT INTO read_cache_app_changes SELECT NEW.app WHERE NEW.app IS NOT OLD.app;
        END;
        CREATE TEMP TRIGGER read_cache_purpose_deleted AFTER DELETE ON main.app_purpose_strings BEGIN
            INSERT INTO read_cache_app_changes VALUES (OLD.app);
        END;
        CREATE TEMP TRIGGER read_cache_localized_inserted AFTER INSERT ON main.app_localized_purpose_strings BEGIN
            INSERT INTO read_cache_app_changes VALUES (NEW.app);
        END;
        CREATE TEMP TRIGGER read_cache_localized_updated AFTER UPDATE ON main.app_localized_purpose_strings BEGIN
            INSERT INTO read_cache_app_changes VALUES (OLD.app);
            INSERT INTO read_cache_app_changes SELECT NEW.app WHERE NEW.app IS NOT OLD.app;
        END;
        CREATE TEMP TRIGGER read_cache_localized_deleted AFTER DELETE ON main.app_localized_purpose_strings BEGIN
            INSERT INTO read_cache_app_changes VALUES (OLD.app);
        END;
        """

    private enum Pending {
        case keys([AuthorizationKey], users: [UserID], apps: [AppID])
        case everything
    }

    let cache: ReadCache
    /// The writer's audit chain tip: where the entries it appended end.
    let auditChainTip: AuditChainTipCache
    /// What the transaction being committed changed. Touched only on the writer queue.
    private var pending: Pending?

    /// Debug builds: stops unless the caller holds the loan of a writing connection (the
    /// writer queue's); `pending` belongs to it.
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

    /// Creates the temporary table and triggers on the writer connection.
    func install(on database: Database) throws {
        try database.execute(Self.installation)
    }

    // Run at every commit.
    private static let selectChanges = StatementSlot("SELECT user, app, service FROM temp.read_cache_changes")
    private static let selectAppChanges = StatementSlot("SELECT DISTINCT app FROM temp.read_cache_app_changes")
    private static let deleteChanges = StatementSlot("DELETE FROM temp.read_cache_changes")
    private static let deleteAppChanges = StatementSlot("DELETE FROM temp.read_cache_app_changes")

    func willCommit(_ database: Database) throws {
        ownsWriter(database)
        var keys: [AuthorizationKey] = []
        var users: [UserID] = []
        var rows = 0
        try database.withStatement(Self.selectChanges) { statement in
            while try statement.step() {
                rows += 1
                if rows > Self.maximumTrackedChanges { break }
                let user = UserID(trusted: statement.string(at: 0) ?? "")
                if let app = statement.string(at: 1), let service = statement.string(at: 2) {
                    keys.append(AuthorizationKey(user: user, app: AppID(trusted: app), service: ServiceID(trusted: service)))
                } else {
                    users.append(user)
                }
            }
        }
        // One row per purpose string saved: distinct apps, which are few.
        var apps: [AppID] = []
        try database.withStatement(Self.selectAppChanges) { statement in
            while try statement.step() { apps.append(AppID(trusted: statement.string(at: 0) ?? "")) }
        }
        guard rows > 0 || !apps.isEmpty else {
            pending = nil
            return
        }
        try database.withStatement(Self.deleteChanges) { try $0.execute() }
        try database.withStatement(Self.deleteAppChanges) { try $0.execute() }
        pending = rows > Self.maximumTrackedChanges ? .everything : .keys(keys, users: users, apps: apps)
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
        let head = auditChainTip.tip?.seq ?? fileAuditHead(database)
        switch pending {
        case nil: cache.invalidate(keys: [], users: [], publishing: head)
        case .everything: cache.removeAll(publishing: head)
        case .keys(let keys, let users, let apps): cache.invalidate(keys: keys, users: users, apps: apps, publishing: head)
        }
    }

    func didLoseTrack(_ database: Database) {
        ownsWriter(database)
        pending = nil
        // Outside a transaction (or after a rollback): keys recorded so far are covered by the
        // clear below. A failure leaves them for the next commit, which only removes more.
        try? database.execute("DELETE FROM temp.read_cache_changes")
        try? database.execute("DELETE FROM temp.read_cache_app_changes")
        cache.removeAll(publishing: fileAuditHead(database))
    }

    /// The last audit seq in the file; 0 (show nothing new) when it cannot be read, so that
    /// entries stay hidden rather than shown early.
    private func fileAuditHead(_ database: Database) -> Int64 {
        do {
            return try StoreSession(database: database).lastAuditSeq()
        } catch {
            return 0
        }
    }
}
