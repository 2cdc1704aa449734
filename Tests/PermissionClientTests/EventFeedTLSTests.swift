import Foundation
import PermissionClient
import TestProcesses
import TestThreads
import Testing

/// The change feed against a TLS server whose certificate does not verify (a self-signed one,
/// served by `openssl s_server` on loopback): the failure is the same on every attempt, so the
/// feed ends at once with libcurl's code instead of reconnecting for a minute or two.
@Suite(.serialized, .timeLimit(.minutes(1)), .startsProcesses)
struct EventFeedTLSTests {
    @Test func aCertificateThatDoesNotVerifyEndsTheFeedAtOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feed-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (key, certificate, log) = (directory + "/key.pem", directory + "/cert.pem", directory + "/server.log")
        let made = try ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
            ], timeout: 30)
        try #require(made.status == 0, "\(made.standardError)")
        let server = try ChildProcess(
            "/usr/bin/openssl", ["s_server", "-accept", "127.0.0.1:0", "-cert", certificate, "-key", key, "-www"],
            standardOutput: log, standardError: log)
        defer { _ = server.killAndWait() }
        var port: String?
        let deadline = Date().addingTimeInterval(20)
        while port == nil, Date() < deadline, server.isRunning {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            port = text.split(separator: "\n").first { $0.hasPrefix("ACCEPT 127.0.0.1:") }.map { String($0.dropFirst(17)) }
            if port == nil { usleep(10_000) }
        }
        let listening = try #require(port, "s_server did not say where it listens")

        let client = try PermissionClient(
            configuration: .init(baseURL: "https://127.0.0.1:\(listening)", apiKey: "k", timeout: .seconds(5)))
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
            let refused = try Permctl.run(arguments, url: "https://127.0.0.1:\(listening)", key: "k")
            #expect(refused.status == 1, "\(arguments): \(refused.status) \(refused.stderr)")
        }
    }
}
