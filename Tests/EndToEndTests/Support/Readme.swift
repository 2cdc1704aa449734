import Foundation

/// The parts of README.md and docs/*.md that tests keep honest.
struct Readme {
    /// One command of the walkthrough and what it must print.
    struct Step {
        /// 1-based line of the ```sh fence, for messages.
        var line: Int
        var command: String
        /// "json" or "ndjson", or nil when the command's output is not checked.
        var expectedKind: String?
        var expected: String?
    }

    let text: String
    /// The file's path from the repository root, for messages.
    let path: String

    /// The document at `path` (from the repository root): README.md, or a page of docs/.
    init(_ path: String = "README.md") throws {
        self.path = path
        text = try String(contentsOf: Paths.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The lines of the section headed `## title`, up to the next `## ` heading; with no title,
    /// every line of the file.
    func section(_ title: String?) -> [(number: Int, text: String)] {
        var lines: [(Int, String)] = []
        var inside = title == nil
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let title, line.hasPrefix("## ") {
                inside = line.dropFirst(3).trimmingCharacters(in: .whitespaces) == title
                continue
            }
            if inside { lines.append((index + 1, String(line))) }
        }
        return lines
    }

    /// The fenced blocks of a section: (info string, first line, body).
    func fencedBlocks(in title: String?) -> [(info: String, line: Int, body: String)] {
        var blocks: [(String, Int, String)] = []
        var open: (info: String, line: Int, body: [String])?
        for (number, line) in section(title) {
            if line.hasPrefix("```") {
                if let current = open {
                    blocks.append((current.info, current.line, current.body.joined(separator: "\n")))
                    open = nil
                } else {
                    open = (String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), number, [])
                }
            } else if open != nil {
                open?.body.append(line)
            }
        }
        return blocks
    }

    /// The commands of a section (of the whole file when `title` is nil): each ```sh block,
    /// with the ```json or ```ndjson block right after it.
    func steps(in title: String?) -> [Step] {
        let blocks = fencedBlocks(in: title)
        var steps: [Step] = []
        var index = 0
        while index < blocks.count {
            let block = blocks[index]
            index += 1
            guard block.info == "sh" else { continue }
            var step = Step(line: block.line, command: block.body)
            if index < blocks.count, ["json", "ndjson"].contains(blocks[index].info) {
                step.expectedKind = blocks[index].info
                step.expected = blocks[index].body
                index += 1
            }
            steps.append(step)
        }
        return steps
    }
}
