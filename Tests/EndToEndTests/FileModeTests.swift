import Foundation
import LiveTestSupport
import TestThreads
import Testing

/// Data at rest (SPEC §12): the database, its `-wal` and `-shm`, and backups are `0600` and the
/// data directory the server creates is `0700`, whatever the umask; a looser existing file is
/// tightened when the server opens it.
@Suite(.serialized, .timeLimit(.minutes(3)), .startsProcesses)
struct FileModeTests {
    /// The permission bits of `path`, nil when it does not exist.
    static func mode(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode) & 0o777
    }

    static func octal(_ mode: Int?) -> String { mode.map { String($0, radix: 8) } ?? "missing" }

    @Test("db, -wal, -shm, the data directory and a backup are private whatever the umask", arguments: ["000", "022"])
    func privateWhateverTheUmask(umask: String) throws {
        let directory = try Paths.makeTemporaryDirectory("modes")
        defer { Paths.removeTemporary(directory) }
        let data = directory.appendingPathComponent("data").path
        let database = data + "/permissions.sqlite"
        let server = try ServerProcess(
            database: database, directory: directory, environment: OperationsTests.keyEnvironment, umask: umask)
        defer { server.killNow() }
        #expect(try OperationsTests.putApp(server, "com.example.modes") == "201")  // a write: -wal and -shm exist
        for file in [database, database + "-wal", database + "-shm"] {
            #expect(Self.octal(Self.mode(file)) == "600", "\(file) under umask \(umask)")
        }
        #expect(Self.octal(Self.mode(data)) == "700", "the data directory under umask \(umask)")

        let backup = directory.appendingPathComponent("backup.sqlite").path
        let copy = try Subprocess.run(
            "/bin/sh",
            ["-c", "umask \(umask) && exec \"$0\" \"$@\"", Paths.serverBinary, "backup", "--to", backup, "--database", database])
        #expect(copy.status == 0, "backup: \(copy.stdout) \(copy.stderr)")
        #expect(Self.octal(Self.mode(backup)) == "600", "the backup under umask \(umask)")
    }

    @Test("an existing database file readable by others is tightened to 0600 at start")
    func looseFileTightened() throws {
        let directory = try Paths.makeTemporaryDirectory("modes-loose")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("loose.sqlite").path
        _ = try OperationsTests.sqlite(database, "PRAGMA journal_mode = WAL; CREATE TABLE scratch (x INTEGER)")
        #expect(chmod(database, 0o644) == 0)
        let server = try ServerProcess(database: database, directory: directory, environment: OperationsTests.keyEnvironment)
        defer { server.killNow() }
        #expect(try OperationsTests.putApp(server, "com.example.loose") == "201")
        for file in [database, database + "-wal", database + "-shm"] {
            #expect(Self.octal(Self.mode(file)) == "600", "\(file)")
        }
        let told = server.log().split(separator: "\n").filter { $0.contains("made it private to its owner") }
        #expect(
            told.count == 1 && told[0].contains("file=\(database) ") && told[0].contains("was=644")
                && told[0].contains("now=600"),
            "one line names the file and both modes: \(server.log())")
    }

    @Test("the audit key file beside the database, left readable by others, is made private at start")
    func looseKeyFileTightened() throws {
        let directory = try Paths.makeTemporaryDirectory("modes-key")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("keyed.sqlite").path
        let key = database + ".audit-key"
        let first = try ServerProcess(database: database, directory: directory, environment: OperationsTests.keyEnvironment)
        #expect(try OperationsTests.putApp(first, "com.example.keyed") == "201")
        first.send(SIGTERM)
        #expect(first.waitForExit(timeout: 20) == 0)
        #expect(Self.octal(Self.mode(key)) == "600", "made private")
        #expect(chmod(key, 0o644) == 0)

        let again = try ServerProcess(database: database, directory: directory, environment: OperationsTests.keyEnvironment)
        defer { again.killNow() }
        #expect(try OperationsTests.putApp(again, "com.example.keyed2") == "201", "the same key still opens it")
        #expect(Self.octal(Self.mode(key)) == "600")
        let notice = "the audit key file was readable or writable by others"
        let told = again.log().split(separator: "\n").filter { $0.contains(notice) }
        #expect(told.count == 1 && told[0].contains("was=644") && told[0].contains("now=600"), "\(again.log())")
    }
}
