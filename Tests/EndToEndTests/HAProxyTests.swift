import Foundation
import LiveTestSupport
import PostgresTestServer
import TestProcesses
import Testing

/// The load balancer of `deploy/replicated` (SPEC §9: "behind any load balancer"), live: Debian's
/// HAProxy runs the shipped `haproxy.cfg`, with only its addresses changed (a loopback port for
/// `bind`, the test's replicas for the `server-template` that Docker's DNS fills), in front of
/// replicas of the real binary on the tests' PostgreSQL. What the file promises in its comments
/// is checked: `/readyz` health checks, a killed replica's share going to the others without a
/// failed request, a restarted replica taken back, and an idle event stream outliving the
/// 60 s inactivity timeouts on the server's heartbeat.
@Suite(.timeLimit(.minutes(3)), .startsProcesses)
struct HAProxyTests {
    static let haproxy = "/usr/sbin/haproxy"

    /// The shipped configuration with the test's addresses; throws when the lines it replaces
    /// are not in the file as expected, so a change there is noticed here.
    static func configuration(listeningOn port: Int, replicas: [Int]) throws -> String {
        let shipped = try String(
            contentsOf: Paths.repositoryRoot.appendingPathComponent("deploy/replicated/haproxy.cfg"), encoding: .utf8)
        var lines: [String] = []
        var binds = 0
        var templates = 0
        var inResolvers = false
        for line in shipped.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if inResolvers {
                if line.first == " " || line.isEmpty { continue }
                inResolvers = false
            }
            if line.hasPrefix("resolvers ") {
                inResolvers = true
                continue
            }
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("bind ") {
                binds += 1
                lines.append("    bind 127.0.0.1:\(port)")
            } else if line.trimmingCharacters(in: .whitespaces).hasPrefix("server-template ") {
                templates += 1
                for (index, replica) in replicas.enumerated() {
                    lines.append("    server replica\(index) 127.0.0.1:\(replica) check")
                }
            } else {
                lines.append(line)
            }
        }
        guard binds == 1, templates == 1 else {
            throw TestFailure("haproxy.cfg: expected one bind and one server-template line, found \(binds) and \(templates)")
        }
        return lines.joined(separator: "\n")
    }

    /// HAProxy on the shipped configuration, in the foreground, its log (the requests and the
    /// servers' state changes) in a file; killed by its PID when released.
    final class Balancer {
        let process: ChildProcess
        let port: Int
        let logURL: URL
        var baseURL: String { "http://127.0.0.1:\(port)" }

        init(replicas: [Int], directory: URL) throws {
            port = try LoopbackPort.free()
            let config = directory.appendingPathComponent("haproxy.cfg")
            try Data(try HAProxyTests.configuration(listeningOn: port, replicas: replicas).utf8).write(to: config)
            let check = try Subprocess.run(HAProxyTests.haproxy, ["-c", "-f", config.path], timeout: 20)
            guard check.status == 0 else { throw TestFailure("haproxy -c: \(check.stdout) \(check.stderr)") }
            logURL = directory.appendingPathComponent("haproxy.log")
            _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
            process = try ChildProcess(
                HAProxyTests.haproxy, ["-db", "-f", config.path], standardOutput: logURL.path, standardError: logURL.path)
        }

        func log() -> String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }
    }

    /// `count` GETs of `path` through `url`, each on a new connection, one after the other, with
    /// the request id `prefix-N`; prints each status on a line.
    static let sequentialGets = """
        import http.client, sys
        port, key, path, prefix, count = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
        for n in range(count):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            try:
                connection.request("GET", path, headers={"Authorization": "Bearer " + key, "X-Request-Id": f"{prefix}-{n}"})
                response = connection.getresponse()
                response.read()
                print(response.status)
            except Exception as error:
                print("error", type(error).__name__)
            finally:
                connection.close()
        """

    /// The statuses of `count` GETs through `balancer`.
    static func gets(_ balancer: Balancer, _ path: String, prefix: String, count: Int) throws -> [String] {
        let result = try Subprocess.python(
            sequentialGets, [String(balancer.port), ServerProcess.adminKey, path, prefix, String(count)], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// How many of the requests whose id starts with `prefix-` `replica` logged.
    static func served(_ replica: ServerProcess, _ prefix: String) -> Int {
        replica.log().components(separatedBy: "request-id=\(prefix)-").count - 1
    }

    @Test("requests spread over the ready replicas; a killed one's share goes to the other, none failing; restarted, it is back")
    func failoverAndReturn() throws {
        let cluster = try ReplicaTests.Cluster("haproxy-failover", count: 2)
        let ports = cluster.replicas.map(\.port)
        let balancer = try Balancer(replicas: ports, directory: cluster.directory)
        let path = ReplicaTests.camera

        // Both replicas pass their /readyz checks and get requests.
        let spread = try ReplicaTests.within(15) {
            _ = try Self.gets(balancer, path, prefix: "warm", count: 4)
            return cluster.replicas.allSatisfy { Self.served($0, "warm") > 0 }
        }
        #expect(spread != nil, "not every replica got requests: \(balancer.log())")
        let checked = ReplicaTests.within(10) { cluster.replicas.allSatisfy { $0.log().contains("GET /readyz 200") } }
        #expect(checked != nil, "HAProxy checks /readyz on every replica")
        let before = try Self.gets(balancer, path, prefix: "before", count: 10)
        #expect(before == Array(repeating: "200", count: 10), "\(before)")
        #expect(Self.served(cluster.replicas[0], "before") == 5 && Self.served(cluster.replicas[1], "before") == 5)

        // Killed: every request still answered, by the other replica; a write too.
        cluster.replicas[0].killNow()
        let after = try Self.gets(balancer, path, prefix: "after", count: 30)
        #expect(after == Array(repeating: "200", count: 30), "\(after)\n\(balancer.log())")
        #expect(Self.served(cluster.replicas[1], "after") == 30)
        let write = try Subprocess.adminCurl([
            "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", "-H", "Content-Type: application/json", "--data",
            #"{"status":"denied"}"#, balancer.baseURL + path,
        ])
        #expect(write.stdout == "200", "\(write.stdout) \(write.stderr)")
        let down = ReplicaTests.within(15) { balancer.log().contains("replica0 is DOWN") }
        #expect(down != nil, "HAProxy never marked the killed replica down: \(balancer.log())")

        // Back on its port: taken back once its checks pass, and it reads the write made meanwhile.
        let restarted = try ServerProcess(
            database: cluster.uri, directory: cluster.directory,
            extraArguments: ["--database-password-file", cluster.passwordFile, "--port", String(ports[0])])
        defer { restarted.killNow() }
        #expect(restarted.port == ports[0])
        let up = ReplicaTests.within(20) { balancer.log().contains("replica0 is UP") }
        #expect(up != nil, "HAProxy never took the restarted replica back: \(balancer.log())")
        let back = try Self.gets(balancer, path, prefix: "back", count: 10)
        #expect(back == Array(repeating: "200", count: 10), "\(back)")
        #expect(Self.served(restarted, "back") == 5, "\(restarted.log())")
        let read = try Subprocess.adminCurl([restarted.baseURL + path])
        #expect(read.stdout.contains(#""status":"denied""#), "\(read.stdout)")
    }

    @Test("an idle event stream through HAProxy outlives its 60 s inactivity timeouts, kept open by the heartbeat")
    func idleStreamOutlivesTheTimeouts() throws {
        let cluster = try ReplicaTests.Cluster("haproxy-stream", count: 2)
        let balancer = try Balancer(replicas: cluster.replicas.map(\.port), directory: cluster.directory)
        let ready = ReplicaTests.within(15) {
            (try? Subprocess.curl(["-o", "/dev/null", "-w", "%{http_code}", balancer.baseURL + "/readyz"]).stdout) == "200"
        }
        #expect(ready != nil, "\(balancer.log())")
        let stream = try StreamingCurl(
            url: balancer.baseURL + "/v1/events", key: ServerProcess.adminKey, directory: cluster.directory, timeout: 120)
        // Longer than HAProxy's `timeout client` and `timeout server` (60 s), with nothing to send.
        Thread.sleep(forTimeInterval: 70)
        #expect(stream.process.isRunning, "the stream ended while idle: \(stream.text)\n\(balancer.log())")
        #expect(stream.text.components(separatedBy: ": keep-alive").count - 1 >= 4, "\(stream.text)")
        let write = try Subprocess.adminCurl([
            "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", "-H", "Content-Type: application/json", "--data",
            #"{"status":"denied"}"#, balancer.baseURL + ReplicaTests.camera,
        ])
        #expect(write.stdout == "200", "\(write.stdout) \(write.stderr)")
        #expect(stream.waitFor("event: authorization.set", timeout: 5), "\(stream.text)")
    }
}
