package import PermissionDomain

/// The SQL of an audit query (``AuditQuery``, SPEC §5), one text for both stores up to their
/// ``Dialect``, with `?` placeholders and the values to bind in their order (the limit among
/// them), so that SQLite and PostgreSQL select the same entries by construction (SPEC §9).
///
/// A plain query is one keyset scan: `seq > after` with the filters, in seq order, `LIMIT n`,
/// on the index of its most selective filter (`audit_by_app`, `audit_by_user`, ...).
///
/// An app's own feed (``AuditQuery/affecting``) is a merge of keyset scans, each on an index
/// in seq order and each stopping at `n` rows: the entries naming the app (`audit_by_app`), and
/// one scan per action of ``AuditQuery/wideActions`` (`audit_by_action`), whose rows are
/// checked against the app by index lookups (the user's pseudonym in `audit_subjects`, their
/// authorization by (user, app) and prompts by user; an erasure's pseudonym in `audit_by_user`).
/// The wide scans stop at the n-th entry naming the app (`bound`): none after it can be in
/// the page. So a page reads at most n rows of each index beyond the relation checks of the
/// wide entries it passes, however long the log: a feed that follows the head reads a few rows,
/// one that catches up from the start reads each wide entry about once.
package struct AuditQuerySQL {
    /// A parameter.
    package enum Value: Equatable, Sendable {
        case text(String)
        case integer(Int64)
    }

    /// What differs between the stores' SQL.
    package struct Dialect: Sendable {
        /// The user column of every table (`user` in SQLite, `user_id` in PostgreSQL).
        let user: String
        /// A column term that must not choose the index (SQLite's unary `+`: a time bound
        /// filters a scan in seq order instead of sorting a whole time range for each page).
        let unindexed: @Sendable (String) -> String
        /// The pseudonym a `user.erased` entry's detail (a flat JSON object, ``DetailJSON``)
        /// names, as an expression over the row of `audit`.
        let erasedPseudonym: String

        package static let sqlite = Dialect(
            user: "user", unindexed: { "+" + $0 }, erasedPseudonym: "json_extract(audit.detail, '$.pseudonym')")
        package static let postgres = Dialect(
            user: "user_id", unindexed: { $0 }, erasedPseudonym: "(audit.detail::json ->> 'pseudonym')")
    }

    /// The query's `user` filter, resolved to the pseudonym the log keeps for the user.
    package enum UserFilter: Equatable, Sendable {
        case none
        case pseudonym(String)
        /// The log holds nothing about the user (no pseudonym).
        case unknown
    }

    package private(set) var sql = ""
    package private(set) var values: [Value] = []

    /// - Parameters:
    ///   - query: the query (a `limit` below 1 is 1).
    ///   - user: its `user` filter resolved (``UserFilter``); a plain query's `.unknown` selects nothing.
    ///   - through: the last seq the reader shows, nil for every committed one.
    ///   - select: the select list, over the table `audit`.
    ///   - dialect: the store's.
    package init(query: AuditQuery, user: UserFilter, through: Int64?, select: String, dialect: Dialect) {
        let limit = Int64(max(query.limit, 1))
        let order = query.newestFirst ? "DESC" : ""
        guard let app = query.affecting else {
            var scan = Scan(dialect)
            scan.range(query, through: through)
            switch user {
            case .none: break
            case .pseudonym(let pseudonym): scan.add("audit.\(dialect.user) = ?", .text(pseudonym))
            case .unknown: scan.add("0 = 1")
            }
            scan.equal("audit.app", query.app?.rawValue)
            scan.equal("audit.service", query.service?.rawValue)
            scan.equal("audit.action", query.action?.rawValue)
            scan.times(query)
            sql = "SELECT \(select) FROM audit \(scan.whereSQL) ORDER BY seq \(order) LIMIT ?"
            values = scan.values + [.integer(limit)]
            return
        }
        var named: Scan?
        if user != .unknown {
            var scan = Scan(dialect)
            scan.range(query, through: through)
            if case .pseudonym(let pseudonym) = user { scan.add("audit.\(dialect.user) = ?", .text(pseudonym)) }
            scan.equal("audit.app", app.rawValue)
            scan.equal("audit.service", query.service?.rawValue)
            scan.equal("audit.action", query.action?.rawValue)
            scan.times(query)
            named = scan
        }
        var parts: [(sql: String, values: [Value])] = []
        var prefix = ""
        var prefixValues: [Value] = []
        if let named {
            // The n-th entry naming the app: no wide entry after it can be in the page.
            prefix = "WITH bound AS (SELECT audit.seq FROM audit \(named.whereSQL) ORDER BY audit.seq \(order) LIMIT 1 OFFSET ?) "
            prefixValues = named.values + [.integer(limit - 1)]
            parts.append(
                (
                    "SELECT audit.seq FROM audit \(named.whereSQL) ORDER BY audit.seq \(order) LIMIT ?",
                    named.values + [.integer(limit)]
                ))
        }
        // With a user or service filter, the app's registration (which names neither) is still
        // about every user and service of the app; without them the entries naming it hold it.
        let extra: [AuditAction] = query.user != nil || query.service != nil ? [.appPut] : []
        for action in AuditQuery.wideActions + extra where query.action == nil || query.action == action {
            guard var scan = Self.wide(action, app: app, query: query, user: user, dialect: dialect) else { continue }
            scan.range(query, through: through)
            if named != nil {
                scan.add(
                    query.newestFirst
                        ? "audit.seq >= coalesce((SELECT seq FROM bound), 0)"
                        : "audit.seq <= coalesce((SELECT seq FROM bound), 9223372036854775807)")
            }
            scan.times(query)
            parts.append(
                (
                    "SELECT audit.seq FROM audit \(scan.whereSQL) ORDER BY audit.seq \(order) LIMIT ?",
                    scan.values + [.integer(limit)]
                ))
        }
        guard !parts.isEmpty else {
            sql = "SELECT \(select) FROM audit WHERE 0 = 1 LIMIT ?"
            values = [.integer(limit)]
            return
        }
        let union = parts.enumerated().map { "SELECT seq FROM (\($1.sql)) AS part\($0)" }.joined(separator: " UNION ALL ")
        sql = prefix + "SELECT \(select) FROM audit WHERE audit.seq IN (\(union)) ORDER BY seq \(order) LIMIT ?"
        values = prefixValues + parts.flatMap(\.values) + [.integer(limit)]
    }

    /// The scan of `action`'s entries that belong in `app`'s feed (``AuditQuery/affecting``),
    /// before its seq range; nil when the filters leave none of them.
    private static func wide(
        _ action: AuditAction, app: AppID, query: AuditQuery, user: UserFilter, dialect: Dialect
    ) -> Scan? {
        var scan = Scan(dialect)
        scan.add("audit.action = ?", .text(action.rawValue))
        let userColumn = "audit.\(dialect.user)"
        switch action {
        case .appPut:
            scan.add("audit.app = ?", .text(app.rawValue))
        case .policyPut, .policyDeleted:
            // With a user filter, the app's own policies for every user too (the entries naming
            // the app are narrowed to the user's then).
            if query.user == nil {
                scan.add("audit.app IS NULL")
            } else {
                scan.add("(audit.app IS NULL OR audit.app = ?)", .text(app.rawValue))
            }
            scan.equal("audit.service", query.service?.rawValue)
            switch user {
            case .none:
                scan.add("(\(userColumn) IS NULL OR \(related(dialect)))", .text(app.rawValue), .text(app.rawValue))
            case .pseudonym(let pseudonym):
                scan.add(
                    "(\(userColumn) IS NULL OR (\(userColumn) = ? AND \(related(dialect))))", .text(pseudonym),
                    .text(app.rawValue), .text(app.rawValue))
            case .unknown:
                scan.add("\(userColumn) IS NULL")
            }
        case .servicePut:
            scan.add("audit.app IS NULL")
            scan.equal("audit.service", query.service?.rawValue)
        case .settingsChanged:
            guard AuditQuery.locationSwitchPasses(service: query.service) else { return nil }
            switch user {
            case .none: break
            case .pseudonym(let pseudonym): scan.add("\(userColumn) = ?", .text(pseudonym))
            case .unknown: return nil
            }
            scan.add(related(dialect), .text(app.rawValue), .text(app.rawValue))
        case .userErased:
            guard user == .none else { return nil }
            scan.add(
                """
                EXISTS (SELECT 1 FROM audit AS r WHERE r.\(dialect.user) = \(dialect.erasedPseudonym) \
                AND \(dialect.unindexed("r.app")) = ? AND r.seq < audit.seq)
                """, .text(app.rawValue))
        default:
            return nil
        }
        return scan
    }

    /// Whether the user of the `audit` row (its pseudonym) has an authorization record with the
    /// app or a prompt of it, in any state (`prompts_by_user`: a user has few); two parameters,
    /// the app twice.
    private static func related(_ dialect: Dialect) -> String {
        let user = dialect.user
        return """
            EXISTS (SELECT 1 FROM audit_subjects AS s WHERE s.pseudonym = audit.\(user) AND (\
            EXISTS (SELECT 1 FROM authorizations AS a WHERE a.\(user) = s.\(user) AND a.app = ?) OR \
            EXISTS (SELECT 1 FROM prompts AS p WHERE p.\(user) = s.\(user) AND p.app = ?)))
            """
    }

    /// One scan's `WHERE`, term by term with its parameters in order.
    private struct Scan {
        let dialect: Dialect
        var terms: [String] = []
        var values: [Value] = []

        init(_ dialect: Dialect) { self.dialect = dialect }

        mutating func add(_ term: String, _ parameters: Value...) {
            terms.append(term)
            values += parameters
        }

        mutating func equal(_ column: String, _ value: String?) {
            guard let value else { return }
            add("\(column) = ?", .text(value))
        }

        /// `after`, `before` and the reader's last visible seq.
        mutating func range(_ query: AuditQuery, through: Int64?) {
            add("audit.seq > ?", .integer(query.after))
            if let before = query.before { add("audit.seq < ?", .integer(before)) }
            if let through { add("audit.seq <= ?", .integer(through)) }
        }

        /// `since` and `until`: they filter a scan in seq order, entry by entry, rather than
        /// choose an index (`at` follows seq only roughly: a host's clock may step back, and
        /// replicas keep the database's time only to within a round trip).
        mutating func times(_ query: AuditQuery) {
            if let since = query.since { add("\(dialect.unindexed("audit.at")) >= ?", .integer(since.millisecondsSince1970)) }
            if let until = query.until { add("\(dialect.unindexed("audit.at")) < ?", .integer(until.millisecondsSince1970)) }
        }

        var whereSQL: String { terms.isEmpty ? "" : "WHERE " + terms.joined(separator: " AND ") }
    }
}
