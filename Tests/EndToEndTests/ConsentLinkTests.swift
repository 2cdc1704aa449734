import Foundation
import LiveTestSupport
import PermissionWire
import TestThreads
import Testing

/// A consent link with the real binary and curl (SPEC §10): made through the API, followed
/// with a cookie jar like a browser, the page seen, the session ended by the logout form.
@Suite(.serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct ConsentLinkTests {
    /// Runs curl and returns (status, headers, body) of the one response.
    static func fetch(_ arguments: [String]) throws -> (status: String, headers: String, body: String) {
        let marker = "\n--status:"
        let result = try Subprocess.curl(["-D", "/dev/stderr", "-w", "\(marker)%{http_code}"] + arguments)
        guard let range = result.stdout.range(of: marker, options: .backwards) else {
            throw ServerProcess.StartupError(description: "curl: \(result.stdout) \(result.stderr)")
        }
        return (String(result.stdout[range.upperBound...]), result.stderr, String(result.stdout[..<range.lowerBound]))
    }

    @Test("user is no key role: keys create refuses it with exit 64 and says why")
    func keysCreateRefusesTheUserRole() throws {
        let directory = try Paths.makeTemporaryDirectory("consent-keys")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("keys.sqlite").path
        let result = try SubcommandTests.server(
            ["keys", "create", "--role", "user", "--name", "browser", "--database", database, "--log-level", "error"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("role: user is a consent session's role, never an API key's"), "\(result.stderr)")
        let listed = try SubcommandTests.server(["keys", "list", "--database", database, "--log-level", "error"])
        #expect(listed.status == 0 && listed.stdout.isEmpty, "no key was made: \(listed.stdout)")
    }

    @Test("the link starts with --public-url")
    func theLinkStartsWithThePublicURL() throws {
        let directory = try Paths.makeTemporaryDirectory("consent-url")
        defer { Paths.removeTemporary(directory) }
        let server = try ServerProcess(
            database: directory.appendingPathComponent("consent.sqlite").path, directory: directory,
            extraArguments: ["--public-url", "https://permissions.example.com/"])
        defer { server.killNow() }
        let made = try Subprocess.adminCurl(["-X", "POST", "\(server.baseURL)/v1/users/u42/consent-sessions"])
        let link = try WireDecoder.decodeResponse(ConsentSessionLink.self, from: Array(made.stdout.utf8))
        #expect(link.url.hasPrefix("https://permissions.example.com/consent/start?token="))
    }

    @Test("make a link with curl, follow it with a cookie jar, see the page, log out")
    func aLinkOpensOneSessionInABrowser() throws {
        let directory = try Paths.makeTemporaryDirectory("consent")
        defer { Paths.removeTemporary(directory) }
        let server = try ServerProcess(
            database: directory.appendingPathComponent("consent.sqlite").path, directory: directory,
            extraArguments: ["--consent-cookie-secure", "false"])
        defer { server.killNow() }
        let jar = directory.appendingPathComponent("cookies.txt").path

        // The line of docs/access-control.md ("Consent pages"), against this server.
        let made = try Subprocess.adminCurl([
            "-X", "POST", "\(server.baseURL)/v1/users/u42/consent-sessions",
        ])
        let link = try WireDecoder.decodeResponse(ConsentSessionLink.self, from: Array(made.stdout.utf8))
        #expect(link.url.hasPrefix("/consent/start?token="))

        let start = try Self.fetch(["-c", jar, "-b", jar, server.baseURL + link.url])
        #expect(start.status == "200")
        let headers = start.headers.lowercased()
        #expect(!headers.contains("location:"))
        #expect(start.body.contains(#"<meta http-equiv="refresh" content="0; url=/consent/">"#))
        #expect(headers.contains("set-cookie: permission_consent="))
        #expect(headers.contains("; path=/consent; max-age=") && headers.contains("; httponly; samesite=strict"))
        #expect(headers.contains("referrer-policy: no-referrer") && headers.contains("cache-control: no-store"))
        #expect(try String(contentsOfFile: jar, encoding: .utf8).contains("permission_consent"))

        let page = try Self.fetch(["-b", jar, "\(server.baseURL)/consent/"])
        #expect(page.status == "200")
        #expect(page.body.contains("Choices of u42"))
        #expect(page.headers.contains("Content-Security-Policy: default-src 'self'; frame-ancestors 'none'"))
        let marker = #"name="csrf" value=""#
        let csrf = try #require(page.body.range(of: marker).map { String(page.body[$0.upperBound...].prefix { $0 != "\"" }) })

        // The cookie is no key on /v1.
        let cookie = try String(contentsOfFile: jar, encoding: .utf8).split(separator: "\n").last {
            $0.contains("permission_consent")
        }
        let secret = try #require(cookie?.split(separator: "\t").last)
        #expect(try Self.fetch(["-b", "permission_consent=\(secret)", "\(server.baseURL)/v1/apps"]).status == "401")

        let forged = try Self.fetch(["-b", jar, "--data", "csrf=nope", "\(server.baseURL)/consent/logout"])
        #expect(forged.status == "403")
        let out = try Self.fetch(["-L", "-b", jar, "-c", jar, "--data", "csrf=\(csrf)", "\(server.baseURL)/consent/logout"])
        #expect(out.status == "200" && out.body.contains("You are signed out"))
        let after = try Self.fetch(["-b", jar, "\(server.baseURL)/consent/"])
        #expect(after.status == "401" && after.body.contains("This link has expired"))
        let again = try Self.fetch(["-c", jar, "-b", jar, server.baseURL + link.url])
        #expect(again.status == "410" && !again.headers.lowercased().contains("set-cookie"))

        let audit = try Subprocess.adminCurl(["\(server.baseURL)/v1/audit?action=consent.session.ended"]).stdout
        #expect(audit.contains(#""role":"user""#) && audit.contains(link.id))
    }
}
