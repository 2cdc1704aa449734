import ArgumentParser
import Foundation
import PermissionClient
import PermissionWire

/// `permctl audit [filters] [--follow]`.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show the audit log, filtered; --follow keeps printing new entries from the change feed.",
        discussion: """
            --follow resumes after the last entry it printed when the connection is lost, when the server \
            answers 503 or 429 (after its Retry-After), and when nothing arrives for --idle-timeout seconds \
            (the server sends a heartbeat every 15 s, so a longer silence is a dead connection); it ends after \
            20 failed attempts in a row, from 0.2 s doubling to 10 s apart: about one to two minutes without a \
            server, so a restart or a rolling update is ridden out. It sends the hash of the last entry it printed with its position, so a \
            log restored from an earlier backup ends it with exit 1 instead of skipping new entries. \
            With an app key, which reads its own app's feed but not the audit log, --follow prints no page \
            and follows the feed from --after, else from the log's start.
            Examples:
              permctl audit --user u42 --service location
              permctl audit --action authorization.revoked --since 2026-11-22T00:00:00.000Z
              permctl audit --app com.example.maps --follow
              permctl audit --app com.example.maps --follow --idle-timeout 120
              permctl audit --after 1041 --after-hash 9f2c…7f90 --follow
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Only this user.") var user: String?
    @Option(help: "Only this app.") var app: String?
    @Option(help: "Only this service.") var service: String?
    @Option(help: "Only this action, e.g. authorization.revoked.") var action: String?
    @Option(help: "Entries at or after this instant (RFC 3339).") var since: String?
    @Option(help: "Entries before this instant (RFC 3339).") var until: String?
    @Option(help: "Entries after this seq.") var after: Int64?
    @Option(
        name: .customLong("after-hash"),
        help: ArgumentHelp(
            "With --after: the hash of the entry --after names, as it was read; if the log's entry there has "
                + "another (a restore from an earlier backup), the command fails instead of skipping entries.",
            valueName: "hash"))
    var afterHash: String?
    @Option(help: "The page size (1-1000).") var limit: Int?
    @Flag(help: "After the page, follow the change feed (GET /v1/events) until interrupted.") var follow = false
    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "With --follow: seconds without a byte (not even a heartbeat) after which the feed reconnects "
                + "(1-3600; default: 45, three of the server's 15 s heartbeats).",
            valueName: "seconds"))
    var idleTimeout: Double?

    func validate() throws {
        if afterHash != nil, (after ?? 0) < 1 {
            throw ValidationError("--after-hash goes with --after (1 or more)")
        }
        if follow, action != nil || since != nil || until != nil {
            throw ValidationError("--follow filters only by --user, --app and --service")
        }
        if let idleTimeout {
            guard follow else { throw ValidationError("--idle-timeout applies to --follow only") }
            guard idleTimeout >= 1, idleTimeout <= 3600 else {
                throw ValidationError("--idle-timeout must be between 1 and 3600 seconds")
            }
        }
    }

    static let headers = ["SEQ", "AT", "ACTOR", "ACTION", "USER", "APP", "SERVICE", "CHANGE", "REASON"]

    static func row(_ entry: AuditEntry) -> [String] {
        func snapshot(_ value: AuditEntry.Snapshot?) -> String {
            guard let value else { return "-" }
            return value.level.map { "\(value.status.rawValue)(\($0))" } ?? value.status.rawValue
        }
        let change = entry.from == nil && entry.to == nil ? "-" : "\(snapshot(entry.from))→\(snapshot(entry.to))"
        let actor = entry.actor.keyId.map { "\(entry.actor.role):\($0)" } ?? entry.actor.role
        return [
            String(entry.seq), Output.time(entry.at), actor, entry.action, entry.user ?? "-", entry.app ?? "-",
            entry.service ?? "-", change, entry.reason ?? "-",
        ]
    }

    func run() throws {
        let client = try connection.makeClient(eventsIdleTimeout: idleTimeout.map { .milliseconds(Int64($0 * 1000)) })
        let query = AuditQuery(
            user: user, app: app, service: service, action: action, since: since, until: until,
            after: after, afterHash: afterHash, limit: limit)
        let page: AuditPage
        do {
            page = try client.sendBlocking(Endpoints.audit(query)).value
        } catch .http(let status, _, _) where status == 403 && follow {
            // An app key may follow its app's feed (SPEC §6) but not list the log: the feed alone.
            try followFeed(client, after: after, afterHash: afterHash, query: query)
            return
        } catch {
            Output.failure(error, json: connection.json)
            throw ExitCode(ExitCodes.code(for: error))
        }
        if connection.json {
            if follow { page.items.forEach(Output.json) } else { Output.json(page) }
        } else {
            Output.table(Self.headers, page.items.map(Self.row))
            // The log is oldest first: a page that stops short of the end says where it goes on.
            if !follow { Output.more(after: page.nextAfter.map(String.init)) }
        }
        guard follow else { return }
        guard Output.standardOutputWritten() else { throw Self.outputFailed() }
        let (last, lastHash) = page.items.last.map { ($0.seq, $0.hash) } ?? (after, afterHash)
        try followFeed(client, after: last, afterHash: lastHash, query: query)
    }

    /// Prints the change feed's entries after `last` (nil: from the log's start) until it ends
    /// or the output cannot be written.
    private func followFeed(
        _ client: PermissionClient, after last: Int64?, afterHash lastHash: String?, query: AuditQuery
    ) throws {
        var written = true
        do {
            try client.followEvents(after: last, afterHash: lastHash, filter: query) { entry in
                if connection.json { Output.json(entry) } else { print(Output.visible(Self.row(entry).joined(separator: "  "))) }
                // A reader that went away ends the feed, rather than a feed printed to nobody.
                written = Output.standardOutputWritten()
                return written
            }
        } catch {
            Output.failure(error, json: connection.json)
            throw ExitCode(ExitCodes.code(for: error))
        }
        if !written { throw Self.outputFailed() }
    }

    private static func outputFailed() -> ExitCode {
        Output.error("cannot write the standard output: \(Output.outputFailure)")
        return ExitCode(ExitCodes.cantCreate)
    }
}
