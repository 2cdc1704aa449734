import Foundation
import PermissionClient
import TestProcesses
import TestThreads
import Testing

/// The SDK against a TLS server on loopback (`openssl s_server -www`, which answers any request
/// with a page of its own) whose self-signed certificate no system CA vouches for.
@Suite(.serialized, .timeLimit(.minutes(1)), .startsProcesses)
struct TLSTests {
    /// `openssl s_server` with a new self-signed certificate for 127.0.0.1, killed by its PID
    /// when released.
    final class Server {
        let directory: String
        let certificate: String
        let key: String
        let port: String
        private let process: ChildProcess

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            (key, certificate) = (directory + "/key.pem", directory + "/cert.pem")
            let log = directory + "/server.log"
            let made = try ChildProcess.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                    "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                ], timeout: 30)
            guard made.status == 0 else { throw TestFailure("openssl req: \(made.standardError)") }
            process = try ChildProcess(
                "/usr/bin/openssl", ["s_server", "-accept", "127.0.0.1:0", "-cert", certificate, "-key", key, "-www"],
                standardOutput: log, standardError: log)
            var port: String?
            let deadline = Date().addingTimeInterval(20)
            while port == nil, Date() < deadline, process.isRunning {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                port = text.split(separator: "\n").first { $0.hasPrefix("ACCEPT 127.0.0.1:") }.map { String($0.dropFirst(17)) }
                if port == nil { usleep(10_000) }
            }
            guard let port else { throw TestFailure("s_server did not say where it listens") }
            self.port = port
        }

        var url: String { "https://127.0.0.1:\(port)" }

        deinit {
            _ = process.killAndWait()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// The failure's libcurl code, or nil when the failure is not the transport's (TLS passed:
    /// s_server's page is no JSON) or there was none.
    static func transportCode(_ body: () throws(PermissionClientError) -> Void) -> Int? {
        do {
            try body()
            return nil
        } catch {
            if case .transport(let code, _, _) = error { return code }
            return nil
        }
    }

    @Test func aCertificateThatDoesNotVerifyEndsTheFeedAtOnce() throws {
        let server = try Server()
        let client = try PermissionClient(configuration: .init(baseURL: server.url, apiKey: "k", timeout: .seconds(5)))
        let started = Date()
        var failure: PermissionClientError?
        do {
            try client.followEvents { _ in true }
        } catch {
            failure = error
        }
        let elapsed = Date().timeIntervalSince(started)
        guard case .transport(let code, _, _)? = failure else {
            Issue.record("expected a transport failure, got \(String(describing: failure))")
            return
        }
        #expect(code == 60, "CURLE_PEER_FAILED_VERIFICATION: \(String(describing: failure))")
        #expect(failure?.isPermanent == true)
        // One attempt: the default policy's 20 would take a minute or more.
        #expect(elapsed < 10, "\(elapsed) s")
        // permctl: exit 1, not the 69 a script retries on, for the feed and a call alike.
        for arguments in [["audit", "--follow"], ["status", "u42", "com.example.maps", "camera"]] {
            let refused = try Permctl.run(arguments, url: server.url, key: "k")
            #expect(refused.status == 1, "\(arguments): \(refused.status) \(refused.stderr)")
        }
    }

    /// A private CA: the certificate verifies against `caFile` (permctl: `--cacert`), and a
    /// pinned key must be the server's own.
    @Test func aPrivateCAAndAPinnedKey() throws {
        let server = try Server()
        func code(_ configure: (inout PermissionClient.Configuration) -> Void) throws -> Int? {
            var configuration = PermissionClient.Configuration(
                baseURL: server.url, apiKey: "k", timeout: .seconds(5), retry: RetryPolicy(maxAttempts: 1))
            configure(&configuration)
            let client = try PermissionClient(configuration: configuration)
            return Self.transportCode { () throws(PermissionClientError) in _ = try client.sendBlocking(Endpoints.health()) }
        }
        #expect(try code { _ in } == 60, "not verified against the system's CAs")
        #expect(try code { $0.caFile = server.certificate } == nil, "verified against the CA file")
        #expect(try code { $0.caFile = server.directory + "/none.pem" } == 77, "CURLE_SSL_CACERT_BADFILE")

        let publicKey = server.directory + "/public.pem"
        let exported = try ChildProcess.run(
            "/usr/bin/openssl", ["pkey", "-in", server.key, "-pubout", "-out", publicKey], timeout: 30)
        try #require(exported.status == 0, "\(exported.standardError)")
        #expect(
            try code {
                $0.caFile = server.certificate
                $0.pinnedPublicKey = publicKey
            } == nil, "the server's own key")
        #expect(
            try code {
                $0.caFile = server.certificate
                $0.pinnedPublicKey = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
            } == 90, "CURLE_SSL_PINNEDPUBKEYNOTMATCH")

        let permctl = try Permctl.run(
            ["status", "u42", "com.example.maps", "camera", "--cacert", server.certificate], url: server.url, key: "k")
        #expect(!permctl.stderr.contains("certificate"), "verified: \(permctl.stderr)")
        let environment = try Permctl.run(
            ["status", "u42", "com.example.maps", "camera"], url: server.url, key: "k",
            extra: ["PERMISSION_CA_FILE": server.certificate])
        #expect(!environment.stderr.contains("certificate"), "verified: \(environment.stderr)")

        // A CA file permctl cannot read is the operator's mistake, told before any call: 66, as
        // for a key file, not libcurl's 77 at each call (exit 1, as a certificate that fails).
        let missing = try Permctl.run(
            ["status", "u42", "com.example.maps", "camera", "--cacert", server.directory + "/none.pem"],
            url: server.url, key: "k")
        #expect(missing.status == 66, "\(missing.status) \(missing.stderr)")
        #expect(missing.stderr.contains("--cacert"), "\(missing.stderr)")
        let directory = try Permctl.run(
            ["status", "u42", "com.example.maps", "camera"], url: server.url, key: "k",
            extra: ["PERMISSION_CA_FILE": server.directory])
        #expect(directory.status == 66, "\(directory.status) \(directory.stderr)")
        #expect(directory.stderr.contains("PERMISSION_CA_FILE"), "\(directory.stderr)")
    }
}
