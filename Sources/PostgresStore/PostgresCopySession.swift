package import PermissionDomain

/// The writes of one copy transaction (``PostgresPermissionStore/copyIn(_:)``).
package struct PostgresCopySession {
    let session: PostgresSession

    /// The tables a copy fills before the audit log, parents before children, each with its
    /// columns (PostgreSQL's names: `user_id` for SQLite's `user`). Consent sessions are not
    /// among them: they are ephemeral (minutes long, bound to the cookies of one deployment), so
    /// a copy leaves them behind and their links stop working; their creation and ending stay in
    /// the audit log.
    package static let tables: [(name: String, columns: [String])] = [
        ("apps", ["id", "name", "updated_at", "version", "development_language"]),
        ("app_purpose_strings", ["app", "key", "purpose"]),
        ("app_localized_purpose_strings", ["app", "language", "key", "purpose"]),
        ("services", ["id", "builtin", "specials"]),
        ("service_levels", ["service", "rank", "level", "purpose_keys"]),
        ("policies", ["id", "service", "app", "user_id", "effect", "level", "updated_at"]),
        ("user_settings", ["user_id", "location_services_enabled", "updated_at", "locale"]),
        (
            "authorizations",
            [
                "user_id", "app", "service", "status", "level", "provisional", "once", "expires_at", "reason", "purpose",
                "purpose_hash", "declined_levels", "updated_at", "version", "purpose_language", "button_confirmed",
                "purpose_key",
            ]
        ),
        (
            "prompts",
            [
                "id", "user_id", "app", "service", "kind", "requested_level", "options", "purpose", "purpose_key", "state",
                "created_at", "expires_at", "ended_at", "choice", "purpose_language", "background_uses",
            ]
        ),
        (
            "location_alerts",
            [
                "user_id", "app", "started_at", "alerts_shown", "last_alert_at", "uses_since_alert", "recent_uses",
                "due_at", "app_version",
            ]
        ),
        ("api_keys", ["id", "role", "app", "name", "secret_hash", "created_at", "revoked_at"]),
        ("audit_subjects", ["user_id", "pseudonym", "wrapped_key", "created_at"]),
    ]

    /// The tables whose rows make a database non-empty for a copy.
    static let dataTables = [
        "apps", "authorizations", "policies", "user_settings", "prompts", "location_alerts", "api_keys",
        "audit_subjects", "audit",
    ]

    func requireEmpty() throws {
        var filled: [String] = []
        for table in Self.dataTables {
            let any = try session.row(.cached("SELECT EXISTS (SELECT 1 FROM \(table))")) { try $0.bool(at: 0) } ?? false
            if any { filled.append(table) }
        }
        if try session.lockAuditChainHead().seq != 0, !filled.contains("audit") { filled.append("audit_head") }
        if !filled.isEmpty { throw PostgresCopyTargetNotEmpty(tables: filled) }
    }

    /// Inserts one row into `table` (one of ``tables``), its values in the order of the table's
    /// columns there. Values are sent as text and typed by the column (an integer 0 or 1 is a
    /// valid `boolean`).
    package func insert(into table: String, _ values: [PostgresValue]) throws {
        guard let columns = Self.tables.first(where: { $0.name == table })?.columns else {
            preconditionFailure("copy does not fill table \(table)")
        }
        precondition(values.count == columns.count, "\(table) has \(columns.count) columns, got \(values.count) values")
        let placeholders = (1...columns.count).map { "$\($0)" }.joined(separator: ", ")
        try session.run(
            .cached("INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"), values)
    }

    /// Sets the version floor (``PostgresSession/versionFloor()``) to the source's, so that a
    /// record its erased users held is never followed by a lower version here.
    package func copyVersionFloor(_ version: Int64) throws {
        precondition(version >= 0, "a version floor is never negative")
        try session.run(.cached("UPDATE version_floor SET version = $1 WHERE id = 1"), [.int64(version)])
    }

    /// Appends `record` to the audit log with its stored `prev_hash` and `hash` as they are
    /// (the copy carries the source's chain, it does not make a new one), and moves the chain
    /// head to it. The chain is checked row by row before anything commits: `record` must
    /// follow the head (seq + 1, `prev_hash` equal to the head's hash) and its stored `hash` must
    /// be the domain's hash of its columns, so a source whose chain was broken or edited is
    /// never copied.
    /// - Throws: ``PostgresCopyChainBroken`` when it does not follow the head or its hash is wrong.
    package func appendCopied(_ record: AuditRecord) throws {
        let head = try session.lockAuditChainHead()
        guard record.seq == head.seq + 1, record.prevHash == head.hash, let hash = record.hash,
            hash == AuditChain.sha256.hash(of: record)
        else {
            throw PostgresCopyChainBroken(seq: record.seq, headSeq: head.seq)
        }
        try session.insertAuditRecord(record)
        try session.moveAuditChainHead(to: AuditChainTip(seq: record.seq, hash: hash))
    }
}
