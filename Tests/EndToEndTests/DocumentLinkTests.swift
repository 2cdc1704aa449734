import Foundation
import Testing

/// Every relative link of README.md and docs/*.md (and bench/RESULTS.md) leads somewhere: to a
/// file of the repository and, with a `#fragment`, to a heading of that Markdown file.
@Suite
struct DocumentLinkTests {
    @Test("every relative link and anchor in README.md, docs/*.md and bench/RESULTS.md resolves")
    func relativeLinksResolve() throws {
        let root = Paths.repositoryRoot
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        #expect(docs.count >= 8, "docs/ holds the pages the README links to")
        var checked = 0
        for path in ["README.md", "bench/RESULTS.md"] + docs {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            let links = MarkdownLinks.targets(in: text)
            checked += links.count
            for link in links {
                #expect(
                    MarkdownLinks.problem(of: link, in: path, root: root) == nil,
                    "\(path): \(MarkdownLinks.problem(of: link, in: path, root: root) ?? "")")
            }
        }
        #expect(checked >= 40, "the front page and the docs link each other")
    }

    @Test("the check itself finds a missing file, a missing heading and a link inside code it must skip")
    func checkFindsBrokenLinks() throws {
        let text = """
            # Title
            ## Ports and probes
            [ok](#ports-and-probes) [file](README.md) [anchor](README.md#no-such-heading) [gone](docs/nope.md)
            `[not a link](nowhere.md)` [web](https://example.com/x.md)
            ```
            [in a fence](nowhere.md)
            ```
            <img src="docs/consent/missing.png" alt="x">
            """
        let links = MarkdownLinks.targets(in: text)
        #expect(
            links == [
                "#ports-and-probes", "README.md", "README.md#no-such-heading", "docs/nope.md",
                "docs/consent/missing.png",
            ])
        let problems = links.compactMap { MarkdownLinks.problem(of: $0, in: "README.md", root: Paths.repositoryRoot, text: text) }
        #expect(problems.count == 3, "\(problems)")
        #expect(MarkdownLinks.anchors(in: text) == ["title", "ports-and-probes"])
        #expect(
            MarkdownLinks.anchors(in: "## Exporting a user's data\n## A, b\n## A, b") == [
                "exporting-a-users-data", "a-b", "a-b-1",
            ])
    }
}

/// Relative links and headings of a Markdown file, as GitHub renders them.
enum MarkdownLinks {
    /// The targets of `[text](target)` and `<img src="target">` outside code, except absolute URLs.
    static func targets(in text: String) -> [String] {
        var targets: [String] = []
        for line in proseLines(of: text) {
            for target in values(in: line, after: "](", upTo: ")") + values(in: line, after: "src=\"", upTo: "\"")
            where !target.contains("://") && !target.hasPrefix("mailto:") {
                targets.append(target)
            }
        }
        return targets
    }

    /// The anchors of the headings of `text`, in order (a repeated one gets `-1`, `-2`, ...).
    static func anchors(in text: String) -> [String] {
        var seen: [String: Int] = [:]
        var anchors: [String] = []
        for line in proseLines(of: text, keepingCode: true) where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }
            guard title.hasPrefix(" ") else { continue }
            let slug = String(
                title.trimmingCharacters(in: .whitespaces).lowercased().unicodeScalars.compactMap { scalar in
                    if scalar == " " { return "-" }
                    let character = Character(scalar)
                    return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
                })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.append(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// Why `target`, linked from the file at `path` (from `root`), leads nowhere; nil when it resolves.
    static func problem(of target: String, in path: String, root: URL, text: String? = nil) -> String? {
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let file = String(parts[0])
        let fragment = parts.count > 1 ? String(parts[1]) : nil
        let directory = (path as NSString).deletingLastPathComponent
        let resolved = file.isEmpty ? path : ((directory as NSString).appendingPathComponent(file) as NSString).standardizingPath
        let url = root.appendingPathComponent(resolved)
        guard FileManager.default.fileExists(atPath: url.path) else { return "\(target): no file \(resolved)" }
        guard let fragment else { return nil }
        let linked = file.isEmpty && text != nil ? text : try? String(contentsOf: url, encoding: .utf8)
        guard let linked, resolved.hasSuffix(".md") else { return "\(target): an anchor into a file that has no headings" }
        return anchors(in: linked).contains(fragment) ? nil : "\(target): no heading #\(fragment) in \(resolved)"
    }

    /// The lines outside fenced code blocks, with inline code spans removed (unless `keepingCode`).
    private static func proseLines(of text: String, keepingCode: Bool = false) -> [String] {
        var lines: [String] = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                fenced.toggle()
                continue
            }
            guard !fenced else { continue }
            if keepingCode {
                lines.append(String(line))
            } else {
                lines.append(
                    line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                        .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " "))
            }
        }
        return lines
    }

    /// Each substring of `line` between an occurrence of `opening` and the next `closing`.
    private static func values(in line: String, after opening: String, upTo closing: Character) -> [String] {
        var values: [String] = []
        var rest = Substring(line)
        while let start = rest.range(of: opening) {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: closing) else { break }
            values.append(String(rest[..<end]))
            rest = rest[end...]
        }
        return values
    }
}
