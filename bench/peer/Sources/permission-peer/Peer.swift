import Foundation
import GRDB
import Hummingbird
import Logging

/// The two routes the benches compare with the service, written the way a Swift user would with
/// Hummingbird and GRDB: the status read as one primary-key `SELECT` through a cached statement
/// in `pool.read`, and the durable write as one `pool.write` transaction that upserts the
/// authorization and appends its audit row, committed with `synchronous = FULL`.
///
/// Usage: `permission-peer DATABASE [PORT]` (PORT, else the PORT environment variable, else
/// 18093), on a database that `permission-server migrate` made. The two routes require
/// `Authorization: Bearer BENCH_API_KEY`; `GET /readyz` answers without it once the server listens.
@main
struct Peer {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else {
            FileHandle.standardError.write(Data("usage: permission-peer DATABASE [PORT]\n".utf8))
            exit(2)
        }
        let environment = ProcessInfo.processInfo.environment
        let port = Int(arguments.count >= 3 ? arguments[2] : environment["PORT"] ?? "18093") ?? 18093
        let bearer = "Bearer " + (environment["BENCH_API_KEY"] ?? "")

        var configuration = Configuration()
        configuration.prepareDatabase { db in
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA synchronous = FULL") }
        }
        // DatabasePool opens the file in WAL mode.
        let pool = try DatabasePool(path: arguments[1], configuration: configuration)

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // The service's form: 2026-11-18T11:06:40.001Z.
        let iso8601 = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(date.formatted(iso8601))
        }

        let router = Router()
        router.get("/readyz") { _, _ in "ok" }
        // The key check in spirit only: a plain string comparison, not constant-time as the service's.
        let authorizations = router.group("/v1/users/:user/apps/:app/authorizations")
            .add(middleware: BearerCheck(expected: bearer))
        authorizations.get(":service") { _, context in
            let user = try context.parameters.require("user")
            let app = try context.parameters.require("app")
            let service = try context.parameters.require("service")
            let record = try await pool.read { db in
                let statement = try db.cachedStatement(
                    sql: "SELECT \(Record.columns) FROM authorizations WHERE user = ? AND app = ? AND service = ?")
                return try Row.fetchOne(statement, arguments: [user, app, service]).map(Record.init(row:))
            }
            return try json(record ?? .notDetermined(user: user, app: app, service: service), encoder)
        }
        authorizations.put(":service") { request, context in
            let user = try context.parameters.require("user")
            let app = try context.parameters.require("app")
            let service = try context.parameters.require("service")
            let change = try await request.decode(as: StatusChange.self, context: context)
            guard ["notDetermined", "denied"].contains(change.status) else {
                throw HTTPError(.badRequest, message: "the peer sets notDetermined or denied only")
            }
            let record = try await pool.write { db in try set(change.status, user: user, app: app, service: service, db) }
            return try json(record, encoder)
        }

        var logger = Logger(label: "permission-peer")
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
        try await app.runService()
    }

    /// Sets the status of a (user, app, service) and appends the audit row, in the caller's
    /// transaction; answers the record as stored.
    static func set(_ status: String, user: String, app: String, service: String, _ db: Database) throws -> Record {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let before = try Row.fetchOne(
            db.cachedStatement(
                sql: "SELECT status, level, provisional, once FROM authorizations WHERE user = ? AND app = ? AND service = ?"),
            arguments: [user, app, service])
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    INSERT INTO authorizations (user, app, service, status, level, provisional, once, expires_at, reason,
                                                purpose, declined_levels, updated_at, version)
                    VALUES (?, ?, ?, ?, NULL, 0, 0, NULL, 'userSet', NULL, '', ?, 1)
                    ON CONFLICT (user, app, service) DO UPDATE SET
                        status = excluded.status, level = NULL, provisional = 0, once = 0, expires_at = NULL,
                        reason = excluded.reason, purpose = NULL, updated_at = excluded.updated_at,
                        version = authorizations.version + 1
                    RETURNING \(Record.columns)
                    """),
            arguments: [user, app, service, status, now])
        guard let row else { throw DatabaseError(message: "the upsert returned no row") }
        // The service chains each audit row to the one before by hash; the peer does not chain:
        // it stores a fixed 64-hex placeholder so that the row has the same columns filled.
        let hash = String(repeating: "0", count: 64)
        try db.cachedStatement(
            sql: """
                INSERT INTO audit (seq, at, actor_key, actor_role, action, user, app, service, from_status, from_level,
                                   from_provisional, from_once, to_status, to_level, to_provisional, to_once, reason,
                                   prev_hash, hash)
                VALUES ((SELECT coalesce(max(seq), 0) + 1 FROM audit), ?, 'bench', 'admin', 'authorization.set',
                        ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, 0, 'userSet', ?, ?)
                """
        ).execute(arguments: [
            now, user, app, service, before?["status"] ?? "notDetermined", before?["level"] as String?,
            before?["provisional"] ?? 0, before?["once"] ?? 0, status, hash, hash,
        ])
        return Record(row: row)
    }

    /// A 200 answer with the record as JSON.
    static func json(_ record: Record, _ encoder: JSONEncoder) throws -> Response {
        let body = try encoder.encode(record)
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// The body of the status `PUT`: `{"status": "denied"}`.
struct StatusChange: Decodable, Sendable {
    var status: String
}

/// Answers 401 unless the request carries `Authorization: Bearer BENCH_API_KEY`.
struct BearerCheck<Context: RequestContext>: RouterMiddleware {
    let expected: String

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard request.headers[.authorization] == expected else { throw HTTPError(.unauthorized) }
        return try await next(request, context)
    }
}
