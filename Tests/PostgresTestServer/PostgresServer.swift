package import Foundation
import PostgresStore
import Synchronization
import TestProcesses

/// A real PostgreSQL server for the tests, in a fresh directory of its own.
///
/// ``start()`` runs `initdb` into `/tmp/pgtest-XXXXXX` (short, since the Unix socket's path is
/// limited to 107 bytes), with password authentication (scram-sha-256) for the superuser
/// `postgres`, and starts the server with `pg_ctl` listening only on a Unix socket in that
/// directory: no TCP port, so parallel runs never collide. ``start(watching:durable:tls:)`` with
/// `tls` also listens on a free loopback TCP port with TLS on (libpq never uses TLS on a Unix
/// socket), its certificate made by `openssl` for `127.0.0.1` only. PostgreSQL refuses to run as root,
/// so when the tests run as root (CI does) both run as `nobody:nogroup` through
/// `setpriv --reuid --regid --clear-groups`, with the directory handed to that user.
///
/// ``stop()`` does what `pg_ctl stop -m fast` does, by the server's own PID (from
/// `postmaster.pid`, checked against the start time recorded at start, so a reused PID is never
/// signalled): SIGINT, a bounded wait, SIGKILL if it lingers; then it removes the directory.
/// ``shared`` stops itself when the test process exits (`atexit`). If the test process dies
/// without exiting (SIGKILL, a crash), a watchdog started beside the server (a small `sh` loop,
/// polling every second) sends the server SIGQUIT, then SIGKILL, and removes the directory.
package final class PostgresServer: Sendable {
    /// The temporary directory: the data directory `data`, the socket, the logs.
    package let directory: String
    /// The postmaster's process ID.
    package let pid: pid_t
    /// The postmaster's start time (`/proc/PID/stat`, field 22), to recognize it by.
    private let startTime: String
    /// The superuser's password, random per server.
    package let password: String
    /// The watchdog (a child of this process).
    private let watchdog: ChildProcess
    /// Set once stopped.
    private let stopped = Mutex(false)

    /// The port: it names the socket file (`.s.PGSQL.5432`), and with TLS it is also the
    /// loopback TCP port (a free one then).
    package let port: Int
    /// The certificates of a server started with TLS; nil without.
    package let tls: TLSFiles?

    /// What a client of a server with TLS needs: the CA that signed its certificate (issued for
    /// the IP address `127.0.0.1`, no host name), and a CA that signed nothing the server has.
    package struct TLSFiles: Sendable {
        package let caFile: String
        package let otherCAFile: String
    }

    /// The port of a server without TCP.
    private static let socketOnlyPort = 5432

    /// One server for the whole test run, started on first use and stopped at exit.
    package static let shared: Result<PostgresServer, any Error> = {
        let result = Result { try PostgresServer.start() }
        atexit { PostgresServer.stopSharedAtExit() }
        return result
    }()

    private static func stopSharedAtExit() {
        if case .success(let server) = shared { server.stop() }
    }

    /// A connection string for `database` as the superuser, with `password` (the right one by default).
    package func connectionString(database: String = "postgres", password: String? = nil) -> String {
        "host=\(directory) port=\(port) user=postgres dbname=\(database) password=\(password ?? self.password)"
    }

    /// A `postgresql://` URI for `database` over TCP to `host` (`127.0.0.1`, or another name
    /// for the same address), with `query` (e.g. `sslmode=verify-full&sslrootcert=…`) and no
    /// password: pass it in the query or a password file. Only for a server started with TLS.
    package func tcpURI(database: String = "postgres", host: String = "127.0.0.1", query: String) -> String {
        precondition(tls != nil, "only a server started with TLS listens on TCP")
        return "postgresql://postgres@\(host):\(port)/\(database)?\(query)"
    }

    /// Creates a database of its own for one test (`CREATE DATABASE`) and returns its
    /// connection string.
    /// - Parameter icuLocale: when set, the database's default collation is this ICU locale's
    ///   instead of the cluster's byte order (`en-US`: `B` sorts after `a`, not before): a column
    ///   the store should order by bytes and does not then lists in another order than SQLite's
    ///   (https://www.postgresql.org/docs/15/collation.html#COLLATION-MANAGING-CREATE-ICU).
    package func freshDatabase(icuLocale: String? = nil) throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresConnection(connectionString())
        let collation = icuLocale.map { " TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '\($0)'" } ?? ""
        try admin.execute("CREATE DATABASE \(name)\(collation)")
        return connectionString(database: name)
    }

    /// Whether the postmaster this object started is still running (a zombie counts as gone).
    package var isRunning: Bool { Self.startTime(of: pid) == startTime }

    private init(
        directory: String, port: Int, tls: TLSFiles?, pid: pid_t, startTime: String, password: String,
        watchdog: ChildProcess
    ) {
        self.watchdog = watchdog
        self.port = port
        self.tls = tls
        self.directory = directory
        self.pid = pid
        self.startTime = startTime
        self.password = password
    }

    deinit { stop() }

    /// Stops the server (SIGINT: fast shutdown, https://www.postgresql.org/docs/15/server-shutdown.html),
    /// waits up to 20 s, then SIGKILLs it if it is still there, and removes the directory.
    /// A second call does nothing.
    package func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        if isRunning {
            kill(pid, SIGINT)
            if !Self.waitUntil(seconds: 20, { !self.isRunning }), isRunning {
                kill(pid, SIGKILL)
                _ = Self.waitUntil(seconds: 10) { !self.isRunning }
            }
        }
        // The watchdog has nothing left to watch: end it and reap it (it is this process's child);
        // it checks every second, and SIGKILL follows if SIGTERM did not end it in 10 s.
        watchdog.kill(SIGTERM)
        if watchdog.wait(timeout: 10) == nil { watchdog.killAndWait() }
        do {
            try FileManager.default.removeItem(atPath: directory)
        } catch {
            FileHandle.standardError.write(Data("PostgresServer: could not remove \(directory): \(error)\n".utf8))
        }
    }

    // MARK: - Starting

    /// Errors of starting the server; each carries the tool's output.
    package struct StartError: Error, CustomStringConvertible {
        package let description: String
    }

    /// Starts a new server (see the type's summary); about 1.5 s.
    /// - Parameters:
    ///   - watched: the process whose end the watchdog waits for; this one by default.
    ///   - durable: `fsync` and `full_page_writes` on, as in production, so that a commit waits
    ///     for its WAL flush (for measurements); off by default.
    ///   - tls: also listen on a free loopback TCP port, with TLS (``tls`` names the CA files).
    ///     The port is found free just before the start; a start that loses it to another
    ///     process is tried again, three times at most.
    package static func start(
        watching watched: pid_t = getpid(), durable: Bool = false, tls: Bool = false
    ) throws
        -> PostgresServer
    {
        guard tls else { return try startOnce(watching: watched, durable: durable, tcpPort: nil) }
        var attempt = 1
        while true {
            do {
                return try startOnce(watching: watched, durable: durable, tcpPort: try LoopbackPort.free())
            } catch let error as StartError where attempt < 3 {
                FileHandle.standardError.write(Data("PostgresServer: start with TLS failed, trying again: \(error)\n".utf8))
                attempt += 1
            }
        }
    }

    private static func startOnce(watching watched: pid_t, durable: Bool, tcpPort: Int?) throws -> PostgresServer {
        let bin = try binDirectory()
        var template = Array("/tmp/pgtest-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw StartError(description: "mkdtemp: \(String(cString: strerror(errno)))")
        }
        let directory = String(cString: created)
        do {
            return try start(bin: bin, directory: directory, watched: watched, durable: durable, tcpPort: tcpPort)
        } catch {
            // Whatever did start in the directory is stopped by the PID it wrote, then removed.
            if let pid = postmasterPID(directory: directory), startTime(of: pid) != nil { kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    private static func start(
        bin: String, directory: String, watched: pid_t, durable: Bool, tcpPort: Int?
    ) throws -> PostgresServer {
        let user = try unprivilegedUser()
        if let user { guard chown(directory, user.uid, user.gid) == 0 else { throw StartError(description: "chown: \(errno)") } }
        let password = (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 36) }.joined()
        let passwordFile = directory + "/password"
        try Data(password.utf8).write(to: URL(fileURLWithPath: passwordFile))
        chmod(passwordFile, 0o600)
        if let user { chown(passwordFile, user.uid, user.gid) }

        try run(
            bin + "/initdb",
            [
                "-D", directory + "/data", "-U", "postgres", "--pwfile=" + passwordFile, "--auth=scram-sha-256",
                "-E", "UTF8", "--no-locale", "--no-sync", "--no-instructions",
            ], as: user, log: directory + "/initdb.log")
        // Only a Unix socket in the directory unless TLS is asked for; no fsync unless durable (a
        // test server never outlives a crash).
        let port = tcpPort ?? socketOnlyPort
        var tls: TLSFiles?
        var listen = "-c listen_addresses=''"
        if tcpPort != nil {
            let (files, serverFiles) = try makeCertificates(in: directory, owner: user)
            tls = files
            listen =
                "-c listen_addresses='127.0.0.1' -c ssl=on -c ssl_cert_file='\(serverFiles.certificate)'"
                + " -c ssl_key_file='\(serverFiles.key)'"
        }
        let options =
            "\(listen) -c unix_socket_directories='\(directory)' -c port=\(port)"
            + (durable ? "" : " -c fsync=off -c full_page_writes=off") + " -c max_connections=200"
        try run(
            bin + "/pg_ctl",
            [
                "-D", directory + "/data", "-l", directory + "/server.log", "-o", options, "-w", "-t", "30", "start",
            ], as: user, log: directory + "/pg_ctl.log")

        guard let pid = postmasterPID(directory: directory), let startTime = startTime(of: pid) else {
            throw StartError(description: "no running postmaster in \(directory)/data/postmaster.pid")
        }
        let watchdog = try startWatchdog(watched: watched, pid: pid, startTime: startTime, directory: directory)
        let server = PostgresServer(
            directory: directory, port: port, tls: tls, pid: pid, startTime: startTime, password: password,
            watchdog: watchdog)
        // pg_ctl -w waited for "ready"; connect once to be sure, within a bounded time.
        var lastError: (any Error)?
        let ready = waitUntil(seconds: 30) {
            do {
                _ = try PostgresConnection(server.connectionString())
                return true
            } catch {
                lastError = error
                return false
            }
        }
        guard ready else {
            server.stop()
            throw StartError(description: "the server never accepted a connection: \(String(describing: lastError))")
        }
        return server
    }

    /// `PG_BINDIR` if set, else the newest `/usr/lib/postgresql/N/bin` with an `initdb` (Debian
    /// keeps the server binaries there, not on PATH; `pg_config --bindir` of `libpq-dev` alone
    /// answers `/usr/bin`, which has no `initdb`).
    package static func binDirectory() throws -> String {
        if let bin = ProcessInfo.processInfo.environment["PG_BINDIR"] { return bin }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let newest = versions.compactMap { Int($0) }.sorted().last {
            FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb")
        }
        guard let newest else {
            throw StartError(
                description:
                    "no PostgreSQL server under \(root) (install Debian's postgresql: scripts/setup.sh), or set PG_BINDIR")
        }
        return "\(root)/\(newest)/bin"
    }

    /// Makes, with `openssl`, in `directory/tls`: a CA, the server's key and certificate signed
    /// by it for `IP:127.0.0.1` (no host name), and a second CA that signed nothing. The
    /// server's key belongs to `owner` (PostgreSQL refuses a key others can read).
    private static func makeCertificates(
        in directory: String, owner: (uid: uid_t, gid: gid_t)?
    ) throws -> (TLSFiles, server: (certificate: String, key: String)) {
        let tls = directory + "/tls"
        try FileManager.default.createDirectory(atPath: tls, withIntermediateDirectories: false)
        let log = tls + "/openssl.log"
        func openssl(_ arguments: [String]) throws { try run("/usr/bin/openssl", arguments, as: nil, log: log) }
        for ca in ["ca", "other-ca"] {
            try openssl([
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=permission-service test \(ca)", "-keyout", "\(tls)/\(ca).key", "-out", "\(tls)/\(ca).pem",
            ])
        }
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=127.0.0.1",
            "-keyout", "\(tls)/server.key", "-out", "\(tls)/server.csr",
        ])
        let extensions = tls + "/server.ext"
        try Data("subjectAltName = IP:127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: extensions))
        try openssl([
            "x509", "-req", "-in", "\(tls)/server.csr", "-CA", "\(tls)/ca.pem", "-CAkey", "\(tls)/ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", extensions, "-out", "\(tls)/server.pem",
        ])
        let key = tls + "/server.key"
        chmod(key, 0o600)
        if let owner {
            guard chown(tls, owner.uid, owner.gid) == 0, chown(key, owner.uid, owner.gid) == 0 else {
                throw StartError(description: "chown \(tls): \(errno)")
            }
        }
        let files = TLSFiles(caFile: tls + "/ca.pem", otherCAFile: tls + "/other-ca.pem")
        return (files, (tls + "/server.pem", key))
    }

    /// `nobody:nogroup` when running as root, nil otherwise.
    private static func unprivilegedUser() throws -> (uid: uid_t, gid: gid_t)? {
        guard geteuid() == 0 else { return nil }
        guard let user = getpwnam("nobody"), let group = getgrnam("nogroup") else {
            throw StartError(description: "running as root, and there is no nobody:nogroup to run PostgreSQL as")
        }
        return (user.pointee.pw_uid, group.pointee.gr_gid)
    }

    /// Runs `tool` to completion (as `user` through setpriv when given), its output in `log`, for
    /// at most 120 s (`initdb` takes about a second, `pg_ctl -w -t 30` at most 30).
    ///
    /// The tool is a ``ChildProcess``, waited for by its PID: the server that `pg_ctl` forks
    /// inherits no descriptor of this process but the log, and outliving `pg_ctl` it delays
    /// nothing.
    private static func run(_ tool: String, _ arguments: [String], as user: (uid: uid_t, gid: gid_t)?, log: String) throws {
        let command =
            user.map { ["/usr/bin/setpriv", "--reuid=\($0.uid)", "--regid=\($0.gid)", "--clear-groups", "--", tool] } ?? [tool]
        let child = try ChildProcess(command[0], Array(command.dropFirst()) + arguments, standardOutput: log, standardError: log)
        let termination = child.wait(timeout: 120) ?? child.killAndWait()
        guard termination == .exited(0) else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let ended = termination.map(String.init(describing:)) ?? "still running after 120 s and SIGKILL"
            throw StartError(description: "\(tool) failed (\(ended)): \(text)")
        }
    }

    /// The watchdog: while the server runs, it checks every second that the `watched` process
    /// (recognized by PID and start time) is alive; once it is not, it stops the server by PID
    /// (SIGQUIT, then SIGKILL after 5 s) and removes the directory. It ends by itself once the
    /// server is gone.
    private static func startWatchdog(
        watched: pid_t, pid: pid_t, startTime since: String, directory: String
    ) throws -> ChildProcess {
        guard let watchedStart = startTime(of: watched) else { throw StartError(description: "no process \(watched) to watch") }
        let script = """
            since() { s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0; set -- $s; [ "$1" = Z ] || echo "${20}"; }
            while [ "$(since "$3")" = "$4" ]; do
                if [ "$(since "$1")" != "$2" ]; then
                    kill -QUIT "$3"
                    n=0; while [ $n -lt 50 ] && [ "$(since "$3")" = "$4" ]; do sleep 0.1; n=$((n + 1)); done
                    if [ "$(since "$3")" = "$4" ]; then kill -KILL "$3"; fi
                    rm -rf "$5"
                    exit 0
                fi
                sleep 1
            done
            """
        return try ChildProcess("/bin/sh", ["-c", script, "watchdog", "\(watched)", watchedStart, "\(pid)", since, directory])
    }

    /// The PID in the first line of `data/postmaster.pid`.
    package static func postmasterPID(directory: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.flatMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Field 22 of `/proc/PID/stat` (the start time in clock ticks), nil when there is no such
    /// process or it is a zombie.
    package static func startTime(of pid: pid_t) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, fields[0] != "Z" else { return nil }
        return String(fields[19])
    }

    /// Polls `condition` every 20 ms until it holds or `seconds` pass; returns whether it held.
    package static func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }
}
