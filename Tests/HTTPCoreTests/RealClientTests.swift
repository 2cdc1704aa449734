import Foundation
import HTTPCore
import TestProcesses
import Testing

/// Runs a child process (``ChildProcess``) with a time bound; kills only that child, by PID, if
/// it overstays. The output is its standard output followed by its standard error.
func runBounded(_ executable: String, _ arguments: [String], seconds: Double = 20) throws -> (status: Int32, output: String) {
    let done = try ChildProcess.run(executable, arguments, timeout: seconds)
    return (done.status, done.standardOutput + done.standardError)
}

/// Interop with real clients: curl and Python's http.client.
@Suite struct RealClientTests {
    static func routes(_ router: inout Router) {
        router.get("/a") { _, context in textResponse("A from \(context.remoteAddress)\n") }
        router.get("/b") { _, context in textResponse("B from \(context.remoteAddress)\n") }
        router.post("/upload") { request, _ in
            textResponse("got \(request.body.count) chunked=\(request.headers["Transfer-Encoding"] ?? "no")\n")
        }
        router.get("/stream") { _, _ in
            HTTPResponse(
                headers: ["Content-Type": "application/x-ndjson"],
                body: .stream { writer in
                    for i in 0..<3 {
                        try writer.write(Array("{\"n\":\(i)}\n".utf8))
                        try writer.flush()
                    }
                })
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")))
    func curlReusesTheConnectionForTwoURLs() throws {
        let live = try LiveServer(routes: Self.routes)
        defer { live.stop() }
        let base = "http://127.0.0.1:\(live.port)"
        let result = try runBounded("/usr/bin/curl", ["-sS", "--max-time", "10", "-v", "\(base)/a", "\(base)/b"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        let a = lines.first { $0.hasPrefix("A from ") }.map { $0.dropFirst("A from ".count) }
        let b = lines.first { $0.hasPrefix("B from ") }.map { $0.dropFirst("B from ".count) }
        #expect(a != nil)
        #expect(a == b, "both requests came over the same connection (same client port)")
        #expect(result.output.lowercased().contains("re-using existing connection") || result.output.contains("Reusing existing"))
    }

    /// `OPTIONS *` (curl's `--request-target '*'`) and OPTIONS on a resource: `204` with `Allow`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")))
    func curlAsksWhatIsAllowed() throws {
        let live = try LiveServer(routes: Self.routes)
        defer { live.stop() }
        let base = "http://127.0.0.1:\(live.port)"
        let server = try runBounded(
            "/usr/bin/curl", ["-sS", "--max-time", "10", "-i", "-X", "OPTIONS", "--request-target", "*", base])
        #expect(server.status == 0, "\(server.output)")
        #expect(server.output.hasPrefix("HTTP/1.1 204 No Content\r\n"), "\(server.output)")
        #expect(server.output.contains("\r\nAllow: GET, HEAD, OPTIONS, POST\r\n"), "\(server.output)")
        let resource = try runBounded("/usr/bin/curl", ["-sS", "--max-time", "10", "-i", "-X", "OPTIONS", "\(base)/upload"])
        #expect(resource.output.hasPrefix("HTTP/1.1 204 No Content\r\n"), "\(resource.output)")
        #expect(resource.output.contains("\r\nAllow: OPTIONS, POST\r\n"), "\(resource.output)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")))
    func curlChunkedUploadAndStreamedDownload() throws {
        let live = try LiveServer(routes: Self.routes)
        defer { live.stop() }
        let base = "http://127.0.0.1:\(live.port)"
        let upload = try runBounded(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "10", "-H", "Transfer-Encoding: chunked", "--data-binary",
                String(repeating: "z", count: 70_000), "\(base)/upload",
            ])
        #expect(upload.status == 0)
        #expect(upload.output == "got 70000 chunked=chunked\n")
        let stream = try runBounded("/usr/bin/curl", ["-sS", "--max-time", "10", "\(base)/stream"])
        #expect(stream.output == "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n")
    }

    @Test func pythonHTTPClientKeepsAliveAndReadsChunks() throws {
        let live = try LiveServer(routes: Self.routes)
        defer { live.stop() }
        let script = """
            import http.client, sys
            c = http.client.HTTPConnection("127.0.0.1", \(live.port), timeout=10)
            c.request("GET", "/a"); r = c.getresponse(); a = r.read().decode()
            c.request("HEAD", "/b"); r = c.getresponse(); h = (r.status, r.getheader("Content-Length"), r.read())
            c.request("GET", "/stream"); r = c.getresponse(); s = r.read().decode()
            c.request("POST", "/upload", body=b"x" * 10, headers={"Content-Type": "text/plain"}); r = c.getresponse(); u = r.read().decode()
            c.request("GET", "/nope"); r = c.getresponse(); n = (r.status, r.getheader("Content-Type")); r.read()
            print(a.strip()); print(h); print(s.count("\\n")); print(u.strip()); print(n)
            """
        let python =
            ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "/usr/bin/env"
        let arguments = python == "/usr/bin/env" ? ["python3", "-c", script] : ["-c", script]
        let result = try runBounded(python, arguments)
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(result.output)")
        guard lines.count == 5 else { return }
        #expect(lines[0].hasPrefix("A from 127.0.0.1:"))
        #expect(lines[1] == "(200, '23', b'')")
        #expect(lines[2] == "3")
        #expect(lines[3] == "got 10 chunked=no")
        #expect(lines[4] == "(404, 'application/problem+json')")
    }
}
