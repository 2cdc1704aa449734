import Testing

@testable import PostgresStore

/// Pure: the password never survives ``ConnectionString/redacted(_:)``.
@Suite struct ConnectionStringTests {
    @Test(arguments: [
        ("host=/tmp/x user=app password=hunter2 dbname=app", "host=/tmp/x user=app password=*** dbname=app"),
        ("password = 'hunter2 with spaces' host=db", "password = *** host=db"),
        ("password='it\\'s hunter2'", "password=***"),
        ("host=db password=hunter2", "host=db password=***"),
        ("host=db", "host=db"),
        ("", ""),
        ("host=db password", "host=db ***"),
        ("postgres://app:hunter2@db:5432/app", "postgres://app:***@db:5432/app"),
        ("postgresql://app:hunter2@db/app?sslmode=require", "postgresql://app:***@db/app?sslmode=require"),
        ("postgresql://app@db/app", "postgresql://app@db/app"),
        (
            "postgresql://db/app?user=app&password=hunter2&sslmode=verify-full",
            "postgresql://db/app?user=app&password=***&sslmode=verify-full"
        ),
        ("postgresql://app:hun@ter2@db/app", "postgresql://app:***@db/app"),
        ("postgresql://app:hunter2?x@db/app", "postgresql://app:***@db/app"),
        ("postgresql:///app?host=/tmp/x&password=hunter2", "postgresql:///app?host=/tmp/x&password=***"),
    ])
    func passwordIsRedacted(input: String, expected: String) {
        let redacted = ConnectionString.redacted(input)
        #expect(redacted == expected)
        #expect(!redacted.contains("hunter2"))
        #expect(!redacted.contains("ter2"))
    }

    @Test(arguments: [
        ("postgres://app:hunter2@db:5432/app", "postgres://app@db:5432/app"),
        ("postgresql://app@db/app?sslmode=require", "postgresql://app@db/app?sslmode=require"),
        ("postgresql://db/app?user=app&password=hunter2&sslmode=verify-full", "postgresql://db/app?user=app&sslmode=verify-full"),
        ("postgresql:///app?host=/tmp/x&password=hunter2", "postgresql:///app?host=/tmp/x"),
        ("postgresql://app:hun@ter2@db/app?password=hunter2", "postgresql://app@db/app"),
        ("host=db password=hunter2", "host=db password=***"),
    ])
    func passwordIsRemoved(input: String, expected: String) {
        let removed = ConnectionString.withoutPasswords(input)
        #expect(removed == expected)
        #expect(!removed.contains("hunter2") && !removed.contains("ter2"))
    }

    @Test func passwordsAreFoundAsWrittenAndDecoded() {
        #expect(ConnectionString.passwords(in: "postgres://u:p%40ss@h/d").contains("p@ss"))
        #expect(ConnectionString.passwords(in: "password='a\\'b'").contains("a'b"))
        #expect(ConnectionString.scrub("bad token \"p%zz\"", passwordsOf: "postgres://u:p%zz@h/d") == "bad token \"***\"")
    }

    @Test func errorsRedactTheConnectionTheyAreGiven() {
        let error = PostgresError(message: "failed", connection: "host=db password=hunter2")
        #expect(error.connection == "host=db password=***")
        #expect(!error.description.contains("hunter2"))
    }

    @Test func classification() {
        #expect(PostgresError(sqlState: "40001", message: "").isSerializationFailure)
        #expect(PostgresError(sqlState: "40001", message: "").isRetryableTransactionFailure)
        #expect(PostgresError(sqlState: "40P01", message: "").isDeadlock)
        #expect(PostgresError(sqlState: "40P01", message: "").isRetryableTransactionFailure)
        #expect(PostgresError(sqlState: "23505", message: "").isUniqueViolation)
        #expect(PostgresError(sqlState: "08006", message: "").isConnectionFailure)
        #expect(PostgresError(sqlState: "57P01", message: "").isConnectionFailure)
        #expect(PostgresError(message: "", isConnectionBad: true).isConnectionFailure)
        #expect(!PostgresError(sqlState: "23505", message: "").isConnectionFailure)
        #expect(!PostgresError(sqlState: "22P02", message: "").isRetryableTransactionFailure)
    }
}

#if DEBUG
/// A `PreparedStatement` named per request would prepare ever more on every connection: the
/// process stops past ``PreparedStatement/maximum`` instead (release builds too: a precondition).
@Test func aPreparedStatementNamedPerRequestStopsTheProcess() async {
    let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        for number in 0...PreparedStatement.maximum { _ = PreparedStatement("SELECT \(number)") }
    }
    let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
    #expect(message.contains("statements are named once, in a static let"), "\(message)")
}
#endif

/// Pure: a URI libpq would cut elsewhere than its reader (a raw `@`, `/` or `?` in the user
/// name or password) is told, so that the server refuses it before libpq quotes the rest of
/// the password as a host, a port or a database name.
@Test(arguments: [
    ("postgresql://app:hun@ter2@db/app", true),
    ("postgresql://app:hun/ter2@db/app", true),
    ("postgresql://app:hun?ter2@db/app", true),
    ("postgres://app@db@other/app", true),
    ("postgresql://app:hun%40ter2@db/app", false),
    ("postgresql://app:hun%2Fter2%3F@db:5432/app?sslmode=require", false),
    ("postgresql://app@db/app?application_name=a@b", false),
    ("postgresql://app@db/shop@x", false),
    ("postgresql://db/app", false),
    ("postgresql:///app?host=/run/postgresql", false),
    ("host=db password=a@b@c", false),
])
func ambiguousUserInfoIsTold(_ uri: String, _ ambiguous: Bool) {
    #expect(ConnectionString.hasAmbiguousUserInfo(uri) == ambiguous, "\(uri)")
}
