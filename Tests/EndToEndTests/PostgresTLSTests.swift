import Foundation
import LiveTestSupport
import PostgresTestServer
import Testing

/// The service on PostgreSQL over TLS, as operations.md tells an operator to run it
/// (`sslmode=verify-full&sslrootcert=` in the URI), live: a PostgreSQL of its own with TLS on a
/// loopback port and a certificate for `127.0.0.1` from a test CA, and two replicas of the real
/// binary on it.
@Suite(.serialized, .timeLimit(.minutes(3)), .startsProcesses)
struct PostgresTLSTests {
    @Test(
        "replicas over TLS with verify-full: every connection they open is encrypted, and a write on one is read and streamed on the other"
    )
    func replicasOverTLS() throws {
        let postgres = try PostgresServer.start(tls: true)
        defer { postgres.stop() }
        let tls = try #require(postgres.tls)
        let cluster = try ReplicaTests.Cluster(
            "postgres-tls", count: 2, on: postgres, tcpQuery: "sslmode=verify-full&sslrootcert=\(tls.caFile)")
        #expect(cluster.uri.contains("@127.0.0.1:\(postgres.port)/"), "\(cluster.uri)")

        let stream = try StreamingCurl(
            url: cluster.replicas[1].baseURL + "/v1/events?after=0", key: ServerProcess.adminKey,
            directory: cluster.directory)
        let written = try cluster.call(0, "PUT", ReplicaTests.camera, body: #"{"status":"denied"}"#)
        #expect(written.status == 200, "\(written.body)")
        let revision = try #require(written.headers["permission-revision"].flatMap { Int($0) })
        // The other replica learns of the write from its follower, which reads the change log on a
        // TLS connection of its own.
        let seen = try ReplicaTests.within(5) {
            try cluster.call(1, "GET", ReplicaTests.camera).body.contains(#""status":"denied""#)
        }
        #expect(seen != nil, "replica 1 never showed the write")
        #expect(stream.waitFor("\"seq\":\(revision)", timeout: 5), "the stream on replica 1: \(stream.text)")

        // Every connection to the database but psql's own (over the Unix socket) is the
        // replicas', and each one is TLS: their pools' and their followers'.
        let connections = try CopyToPostgresTests.psql(
            postgres, cluster.name,
            """
            SELECT count(*), count(*) FILTER (WHERE s.ssl), min(s.version)
            FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
            WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
            """
        ).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
        #expect(connections.count == 3, "\(connections)")
        let total = Int(connections.first ?? "") ?? 0
        #expect(total >= 4, "two replicas keep at least a pooled connection and a follower each: \(connections)")
        #expect(connections.dropFirst().first == connections.first, "connections without TLS: \(connections)")
        #expect(connections.last?.hasPrefix("TLSv1.") == true, "\(connections)")
    }

    @Test(
        "a certificate that does not verify stops every command with 69 and libpq's reason: another CA, or a host name it does not name"
    )
    func certificateThatDoesNotVerify() throws {
        let postgres = try PostgresServer.start(tls: true)
        defer { postgres.stop() }
        let tls = try #require(postgres.tls)
        let directory = try Paths.makeTemporaryDirectory("postgres-tls-refused")
        defer { Paths.removeTemporary(directory) }
        let passwordFile = directory.appendingPathComponent("pgpassword").path
        try Data("\(postgres.password)\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
        let keyFile = directory.appendingPathComponent("audit.key").path
        let key = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        try Data(Data(key).base64EncodedString().utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        let environment = ["PGPASSWORD": "", "PERMISSION_AUDIT_KEY_FILE": keyFile]

        let anotherCA = postgres.tcpURI(query: "sslmode=verify-full&sslrootcert=\(tls.otherCAFile)")
        let otherName = postgres.tcpURI(host: "localhost", query: "sslmode=verify-full&sslrootcert=\(tls.caFile)")
        for (uri, reason) in [(anotherCA, "certificate verify failed"), (otherName, "does not match host name")] {
            for command in [["serve", "--port", "0", "--database-start-timeout", "0"], ["migrate"], ["audit", "verify"]] {
                let refused = try SubcommandTests.server(
                    command + ["--database", uri, "--database-password-file", passwordFile], environment: environment)
                #expect(refused.status == 69, "\(command) \(uri): \(refused.stdout) \(refused.stderr)")
                #expect(refused.stderr.contains(reason), "\(command) \(uri): \(refused.stderr)")
                #expect(!(refused.stdout + refused.stderr).contains(postgres.password))
            }
        }
        // The same name with the CA only checked (verify-ca) is let through: the refusal above was
        // the name's.
        let caOnly = postgres.tcpURI(host: "localhost", query: "sslmode=verify-ca&sslrootcert=\(tls.caFile)")
        let migrated = try SubcommandTests.server(
            ["migrate", "--database", caOnly, "--database-password-file", passwordFile], environment: environment)
        #expect(migrated.status == 0, "\(migrated.stdout) \(migrated.stderr)")
    }
}
