import Foundation
import Testing

/// Guards the rule of `StatementSlot` (SQLite) and `PreparedStatement` (PostgreSQL) by reading
/// the sources: each is made once, in a `static let`, never per request (every one made takes a
/// slot, or prepares a statement, on every connection that runs it). Both also stop the process
/// past a number no program of this size reaches (their exit tests).
@Suite struct StatementSourceTests {
    /// The lines that make a statement outside a `static let` (that line or the few before it,
    /// for a `static let` whose value spans lines), the listing cache's one place aside.
    static func madeOutsideAStaticLet() throws -> (files: Int, found: [String]) {
        let pattern = try NSRegularExpression(pattern: "\\b(?:StatementSlot|PreparedStatement)\\(")
        var files = 0
        var found: [String] = []
        for (path, lines) in try SecretComparisonSourceTests.sources()
        where path != "Sources/PostgresStore/PreparedStatement+Cache.swift" {
            var counted = false
            for (number, line) in lines.enumerated() {
                let code = String(line)
                if code.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                guard pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil else { continue }
                if !counted {
                    files += 1
                    counted = true
                }
                if code.contains("init(") && code.contains("package") { continue }  // the type's own
                let context = lines[max(0, number - 4)...number]
                if !context.contains(where: { $0.contains("static let") }) { found.append("\(path):\(number + 1): \(code)") }
            }
        }
        return (files, found)
    }

    @Test func statementsAreMadeOnceInAStaticLet() throws {
        let (files, found) = try Self.madeOutsideAStaticLet()
        #expect(files >= 10, "the statements' files were not read")
        #expect(found.isEmpty, "make statements once, in a static let: \(found)")
    }
}
