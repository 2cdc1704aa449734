import Foundation
import Testing

/// Guards the constant-time rule by reading the sources: secrets, and anything that contains
/// one (an `Authorization` field, a stored secret hash), are compared only with
/// `ConstantTime.equal`, never with `memcmp` and the like (which stop at the first differing
/// byte) nor with `==` (which may).
@Suite struct SecretComparisonSourceTests {
    /// Every Swift file under Sources/, as (path relative to the package, lines).
    static func sources() throws -> [(path: String, lines: [Substring])] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [(String, [Substring])] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            files.append(
                (String(url.path.dropFirst(root.path.count + 1)), text.split(separator: "\n", omittingEmptySubsequences: false)))
        }
        return files
    }

    /// A secret-bearing value itself (not its `.count`, not a check for nil) as an operand of
    /// ==, != or elementsEqual: any name holding secret, hash, token, header or csrf (a field's
    /// or a parameter's *name* aside: `csrfField`), and the result of `hash(…)` or `sha256(…)`.
    static func equalsPattern() throws -> NSRegularExpression {
        let names = "(?:\\w*(?:[Ss]ecret|[Hh]ash|[Tt]oken|[Hh]eader|[Cc]srf)\\w*(?<!Field)(?<!Name)|utf8)"
        return try NSRegularExpression(
            pattern: "\\b\(names)\\b\\s*(?:(?:==|!=)(?!\\s*nil\\b)|\\.elementsEqual\\()"
                + "|(?:==|!=|elementsEqual\\()\\s*(?!nil\\b)[\\w.]*\\b\(names)\\b(?![.(\\w])"
                + "|\\b(?:hash|sha256)\\([^()]*\\)\\s*(?:==|!=)|(?:==|!=)\\s*[\\w.]*\\b(?:hash|sha256)\\(")
    }

    /// The files that handle keys and consent sessions, where secrets are compared: the API's
    /// key and consent code, the domain's access rules, and the services that exchange tokens.
    static func secretHandling(_ path: String) -> Bool {
        [
            "Sources/PermissionAPI/Support/Key", "Sources/PermissionAPI/KeyBootstrap", "Sources/PermissionAPI/Consent/",
            "Sources/PermissionDomain/Access/", "Sources/PermissionDomain/Service/PermissionService+ConsentSessions",
            "Sources/PermissionDomain/Service/PermissionService+Keys",
        ].contains { path.hasPrefix($0) }
    }

    @Test func sourcesAreFound() throws {
        let files = try Self.sources()
        #expect(files.count > 100)
        #expect(files.contains { $0.path == "Sources/PermissionDomain/Access/ConstantTime.swift" })
    }

    @Test func noEarlyExitComparisonOfBytes() throws {
        var found: [String] = []
        for (path, lines) in try Self.sources() {
            for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for call in ["memcmp(", "bcmp(", "strcmp(", "strncmp(", "timingsafe_bcmp("] where line.contains(call) {
                    found.append("\(path):\(number + 1): \(call)")
                }
            }
        }
        #expect(found.isEmpty, "compare secrets with ConstantTime.equal: \(found)")
    }

    @Test func secretsAndHeadersAreNotComparedWithEquals() throws {
        // In the key and consent session code of the API and the domain.
        let pattern = try Self.equalsPattern()
        var found: [String] = []
        let files = try Self.sources().filter { Self.secretHandling($0.path) }
        #expect(files.count >= 30, "the secret-handling files moved: \(files.map(\.path))")
        for file in [
            "Sources/PermissionAPI/Support/KeyAuthenticator.swift", "Sources/PermissionAPI/Consent/ConsentForm.swift",
            "Sources/PermissionDomain/Service/PermissionService+ConsentSessions.swift",
        ] {
            #expect(files.contains { $0.path == file }, "\(file) is not read")
        }
        for (path, lines) in files {
            for (number, line) in lines.enumerated() {
                let code = String(line)
                if code.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                    found.append("\(path):\(number + 1): \(code)")
                }
            }
        }
        #expect(found.isEmpty, "compare secrets with ConstantTime.equal: \(found)")
    }

    /// The pattern above catches what it should (checked here, so that it cannot rot into
    /// matching nothing).
    @Test func theEqualsPatternCatchesComparisons() throws {
        let pattern = try Self.equalsPattern()
        func matches(_ code: String) -> Bool {
            pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil
        }
        #expect(matches("guard key.secretHash == hash else {"))
        #expect(matches("if remembered.header != header {"))
        #expect(matches("a.utf8.elementsEqual(b.utf8)"))
        #expect(matches("guard found.tokenHash == tokenHash else {"))
        #expect(matches("return session.csrfHash == expected"))
        #expect(matches("ConsentSecret.hash(token) == expected"))
        #expect(matches("guard expected != KeySecret.sha256(token) else {"))
        #expect(matches("x == nil || token == other"))
        #expect(!matches("guard secretHash.count == 32 else {"))
        #expect(!matches("if hashed == nil { }"))
        #expect(!matches("if session.secretHash != nil {"))
        #expect(!matches("keyID(of: token, hash: hash(token)) != nil"))
        #expect(!matches("form.fields.filter { $0.name == csrfField }"))
    }

    @Test func oneConstantTimeHelper() throws {
        var found: [String] = []
        for (path, lines) in try Self.sources() where path != "Sources/PermissionDomain/Access/ConstantTime.swift" {
            for (number, line) in lines.enumerated()
            where line.contains("func constantTime") || line.contains("enum ConstantTime") {
                found.append("\(path):\(number + 1)")
            }
        }
        #expect(found.isEmpty, "one helper, ConstantTime.equal: \(found)")
    }
}
