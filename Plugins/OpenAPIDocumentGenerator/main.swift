import Foundation

// Writes a Swift source that holds a text file as `OpenAPIDocument.text`, byte for byte.
// Usage: OpenAPIDocumentGenerator INPUT OUTPUT   (run by OpenAPIDocumentPlugin at build time)
//
// The text goes into a raw multi-line string literal whose delimiter has one `#` more than the
// longest run of `#` in the text, so no `"""` or `\` in it can end or escape anything. What
// such a literal cannot hold exactly is refused rather than changed: a carriage return (the
// compiler turns line breaks into line feeds), other control characters, invalid UTF-8.

/// Stops the build with `message` on standard error.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("OpenAPIDocumentGenerator: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: OpenAPIDocumentGenerator INPUT OUTPUT") }
let (inputPath, outputPath) = (arguments[1], arguments[2])
guard let bytes = FileManager.default.contents(atPath: inputPath) else { fail("cannot read \(inputPath)") }
guard let text = String(validating: bytes, as: UTF8.self) else { fail("\(inputPath) is not valid UTF-8") }
if let byte = bytes.first(where: { $0 < 0x20 && $0 != 0x0A && $0 != 0x09 || $0 == 0x7F }) {
    fail("\(inputPath) holds control character 0x\(String(byte, radix: 16)), which a string literal cannot keep exactly")
}

var longestRun = 0
var run = 0
for byte in bytes {
    run = byte == UInt8(ascii: "#") ? run + 1 : 0
    longestRun = max(longestRun, run)
}
let hashes = String(repeating: "#", count: longestRun + 1)

// A multi-line literal drops the line break before its closing delimiter; the one written
// after the text is that one, so the text keeps its own last line break (or lack of one).
let source = """
    // Generated at build time from openapi.yaml by OpenAPIDocumentGenerator; never committed.

    /// The OpenAPI document served at `GET /openapi.yaml`, byte for byte the repository's file.
    enum OpenAPIDocument {
        static let text = \(hashes)\"""
    \(text)
    \"""\(hashes)
    }

    """
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: outputPath), options: .atomic)
} catch {
    fail("cannot write \(outputPath): \(error)")
}
