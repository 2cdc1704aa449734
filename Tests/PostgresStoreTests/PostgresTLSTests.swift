import Foundation
import PostgresStore
import PostgresTestServer
import Testing

/// Live: libpq's TLS against a real PostgreSQL with TLS on (``PostgresServer/start(watching:durable:tls:)``,
/// a certificate for `127.0.0.1` from a test CA).
@Suite struct PostgresTLSTests {
    @Test func verifyFullEncryptsAndRefusesAnotherCAOrAnotherName() throws {
        let server = try PostgresServer.start(tls: true)
        defer { server.stop() }
        let tls = try #require(server.tls)
        let password = "password=\(server.password)"

        let connection = try PostgresConnection(
            server.tcpURI(query: "sslmode=verify-full&sslrootcert=\(tls.caFile)&\(password)"))
        let rows = try connection.query(PreparedStatement("SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()"))
        #expect(try rows[0].bool(at: 0))
        #expect(try rows[0].string(at: 1).hasPrefix("TLSv1."))
        #expect(connection.option("sslmode") == "verify-full")

        let anotherCA = #expect(throws: PostgresError.self) {
            try PostgresConnection(server.tcpURI(query: "sslmode=verify-full&sslrootcert=\(tls.otherCAFile)&\(password)"))
        }
        #expect(anotherCA?.isConnectionFailure == true)
        #expect(anotherCA?.message.contains("certificate verify failed") == true, "\(String(describing: anotherCA))")
        #expect(anotherCA?.description.contains(server.password) == false)

        let anotherName = #expect(throws: PostgresError.self) {
            try PostgresConnection(
                server.tcpURI(host: "localhost", query: "sslmode=verify-full&sslrootcert=\(tls.caFile)&\(password)"))
        }
        #expect(anotherName?.isConnectionFailure == true)
        #expect(anotherName?.message.contains("does not match host name") == true, "\(String(describing: anotherName))")
        // verify-ca checks the chain only, so the same name is let in: the refusal was the name's.
        _ = try PostgresConnection(
            server.tcpURI(host: "localhost", query: "sslmode=verify-ca&sslrootcert=\(tls.caFile)&\(password)"))
    }
}
