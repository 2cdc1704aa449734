import Foundation
import HTTPCore
internal import Ownership
import PermissionAPI
import PermissionDomain
import PostgresStore
import SQLiteStore
import Synchronization

/// Everything `/metrics` shows, rendered at scrape time: the HTTP request series (fed on the
/// hot path by `HTTPMetricsMiddleware`), open and refused connections per listener, open event streams,
/// and the database: write transaction latency and size, commits, the audit head and
/// authorizations by status (two indexed reads per scrape); on PostgreSQL the replica's
/// visible revision, whether it trusts memory, and its pooled connections. `Sendable` as
/// checked by the compiler: what is attached after start lives in a `Mutex`.
final class ServerMetrics: Sendable {
    /// The store whose figures are shown.
    enum Database {
        case sqlite(SQLitePermissionStore)
        case postgres(PostgresPermissionStore)
    }

    let http = HTTPMetrics()
    private let store: Database
    private struct Attached {
        var listeners: [(name: String, server: HTTPServer)] = []
        var application: PermissionApplication?
    }

    private let attached = Mutex(Attached())

    init(store: Database) {
        self.store = store
    }

    /// Adds a listener to the open-connections gauge, labelled `listener="name"`.
    func attach(_ server: HTTPServer, listener name: String) {
        attached.withLock { $0.listeners.append((name, server)) }
    }

    /// Adds the application's open event streams gauge.
    func attach(_ application: PermissionApplication) {
        attached.withLock { $0.application = application }
    }

    /// The whole exposition; what cannot be read from the database is left out
    /// (`permission_database_up` 0), never the rest.
    func render() -> String {
        let (listeners, application) = attached.withLock { ($0.listeners, $0.application) }

        var text = PrometheusText()
        http.render(into: &text)
        text.family("http_open_connections", help: "HTTP connections open now, by listener.", type: .gauge)
        for (name, server) in listeners {
            text.sample("http_open_connections", labels: [("listener", name)], value: server.openConnections)
        }
        text.family(
            "http_connections_refused_total",
            help: "Connections refused for being over their address's share (--max-connections-per-address), by listener.",
            type: .counter)
        for (name, server) in listeners {
            text.sample("http_connections_refused_total", labels: [("listener", name)], value: Double(server.refusedConnections))
        }
        text.family(
            "http_connections_reclaimed_total",
            help: "Idle connections closed to make room for a new one at the connection cap (--max-connections), by listener.",
            type: .counter)
        for (name, server) in listeners {
            text.sample(
                "http_connections_reclaimed_total", labels: [("listener", name)], value: Double(server.reclaimedConnections))
        }
        text.family(
            "http_worker_threads", help: "Worker threads alive now, running a request or stream (busy) or waiting (idle).",
            type: .gauge)
        for (name, server) in listeners {
            let threads = server.workerThreads
            text.sample("http_worker_threads", labels: [("listener", name), ("state", "busy")], value: threads.busy)
            text.sample("http_worker_threads", labels: [("listener", name), ("state", "idle")], value: threads.idle)
        }
        if let application {
            text.family("permission_event_streams_open", help: "GET /v1/events streams open now.", type: .gauge)
            text.sample("permission_event_streams_open", value: application.openEventStreams)
            text.family(
                "permission_consent_event_streams_open",
                help: "GET /consent/events streams (the consent pages' live updates) open now.", type: .gauge)
            text.sample("permission_consent_event_streams_open", value: application.openConsentEventStreams)
            text.family(
                "permission_missing_purpose_strings_total",
                help: "Requests refused with 422 missing-purpose-string, by the purpose key the app lacked.",
                type: .counter)
            for (key, count) in application.purposeStringRefusals.byKey {
                text.sample("permission_missing_purpose_strings_total", labels: [("key", key)], value: Double(count))
            }
        }
        switch store {
        case .sqlite(let store): Self.renderDatabase(store.metricsSnapshot(), into: &text)
        case .postgres(let store): Self.renderDatabase(store.metricsSnapshot(), into: &text)
        }
        return text.output
    }

    /// What the scrape read from the database, and whether it could: without it (the database
    /// unreachable, its file unreadable) the page still has everything kept in memory, which is
    /// when an operator needs it most.
    private static func renderCounts(_ counts: StoreMetricsCounts?, into text: inout PrometheusText) {
        text.family(
            "permission_database_up", help: "1 when this scrape read the database, else 0 (its series below are then absent).",
            type: .gauge)
        text.sample("permission_database_up", value: counts == nil ? 0 : 1)
        guard let counts else { return }
        text.family("permission_audit_seq", help: "The last audit log sequence number.", type: .gauge)
        text.sample("permission_audit_seq", value: Double(counts.auditSeq))
        text.family("permission_authorizations", help: "Authorization records by status.", type: .gauge)
        for status in ["authorized", "denied", "notDetermined"] {
            text.sample(
                "permission_authorizations", labels: [("status", status)], value: counts.authorizationsByStatus[status] ?? 0)
        }
    }

    private static func renderDatabase(_ database: SQLitePermissionStore.MetricsSnapshot, into text: inout PrometheusText) {
        renderCounts(database.counts, into: &text)
        text.family(
            "sqlite_write_transaction_duration_seconds",
            help: "Group-commit write transactions, BEGIN to end of COMMIT (fsync included).", type: .histogram)
        text.histogram(
            "sqlite_write_transaction_duration_seconds", upperBounds: WriteMetrics.durationBounds,
            counts: database.writes.durationCounts, sum: database.writes.durationSumSeconds)
        text.family(
            "sqlite_write_transaction_writes", help: "Writes committed per transaction (group commit batch size).",
            type: .histogram)
        text.histogram(
            "sqlite_write_transaction_writes", upperBounds: WriteMetrics.batchBounds,
            counts: database.writes.batchCounts, sum: database.writes.batchSum)
        text.family("sqlite_writes_total", help: "Write bodies by outcome.", type: .counter)
        text.sample("sqlite_writes_total", labels: [("outcome", "committed")], value: database.writer.committedWrites)
        text.sample("sqlite_writes_total", labels: [("outcome", "failed")], value: database.writer.failedWrites)
        text.family("sqlite_wal_pages", help: "Pages in the write-ahead log after the last commit.", type: .gauge)
        text.sample("sqlite_wal_pages", value: database.checkpoints.walPages)
        text.family(
            "sqlite_wal_checkpoints_total",
            help:
                "WAL checkpoints, by who ran them: the checkpointer thread, or the writer once the WAL outgrew twice the threshold.",
            type: .counter)
        text.sample("sqlite_wal_checkpoints_total", labels: [("by", "checkpointer")], value: database.checkpoints.checkpoints)
        text.sample("sqlite_wal_checkpoints_total", labels: [("by", "writer")], value: database.checkpoints.writerCheckpoints)
        text.family(
            "sqlite_wal_checkpoint_failures_total", help: "Checkpointer runs that failed (another process held a lock).",
            type: .counter)
        text.sample("sqlite_wal_checkpoint_failures_total", value: database.checkpoints.failures)
        text.family(
            "sqlite_wal_scrubs_total",
            help:
                "WAL truncations after erasures, by outcome: emptied, or retried later (a read of an older snapshot or the writer was in the way).",
            type: .counter)
        text.sample("sqlite_wal_scrubs_total", labels: [("outcome", "emptied")], value: database.checkpoints.scrubs)
        text.sample("sqlite_wal_scrubs_total", labels: [("outcome", "retried")], value: database.checkpoints.scrubRetries)
        text.family(
            "sqlite_wal_scrub_waiting_seconds",
            help:
                "How long the WAL truncation after an erasure has been put off (0: none waits); the erased rows stay in the WAL's older frames meanwhile.",
            type: .gauge)
        let waiting = database.checkpoints.scrubWaiting()
        text.sample(
            "sqlite_wal_scrub_waiting_seconds",
            value: waiting.inSeconds)
        text.family(
            "permission_audit_rewrites_total",
            help:
                "Audit entries this server wrote or read found gone or changed after another process committed: the log was changed around its triggers.",
            type: .counter)
        text.sample("permission_audit_rewrites_total", value: Double(database.auditChainRewrites))
        Self.renderReadCache(database.readCache, into: &text)
    }

    private static func renderDatabase(_ database: PostgresPermissionStore.MetricsSnapshot, into text: inout PrometheusText) {
        renderCounts(database.counts, into: &text)
        text.family(
            "permission_visible_revision", help: "The revision (audit seq) this replica's reads and event feed show.",
            type: .gauge)
        text.sample("permission_visible_revision", value: Double(database.visibleRevision))
        text.family(
            "permission_read_model_fresh",
            help:
                "1 when the change log was read within the last second and this replica's own writes are applied (reads may come from memory), else 0.",
            type: .gauge)
        text.sample("permission_read_model_fresh", value: database.readModelFresh ? 1 : 0)
        text.family("postgres_open_connections", help: "Pooled PostgreSQL connections open now.", type: .gauge)
        text.sample("postgres_open_connections", value: database.openConnections)
        if let offset = database.clockOffset {
            text.family(
                "permission_clock_offset_seconds",
                help: "The database's clock minus this host's, as this replica measured it; it keeps the database's time.",
                type: .gauge)
            text.sample("permission_clock_offset_seconds", value: offset)
        }
        renderReadCache(database.readCache, into: &text)
    }

    private static func renderReadCache(_ statistics: ReadCache.Statistics?, into text: inout PrometheusText) {
        if let cache = statistics {
            text.family(
                "permission_read_cache_lookups_total", help: "Status reads by whether the read cache held the record.",
                type: .counter)
            text.sample("permission_read_cache_lookups_total", labels: [("result", "hit")], value: cache.hits)
            text.sample("permission_read_cache_lookups_total", labels: [("result", "miss")], value: cache.misses)
            text.family(
                "permission_read_cache_entries", help: "Authorization records and user settings in the read cache.", type: .gauge)
            text.sample("permission_read_cache_entries", value: cache.entries)
            text.family(
                "permission_read_cache_evictions_total",
                help: "Records evicted, oldest first, to make room in the full read cache for newly read ones.",
                type: .counter)
            text.sample("permission_read_cache_evictions_total", value: cache.evictions)
            text.family(
                "permission_read_cache_clears_total",
                help:
                    "Times the read cache was emptied (a change of more than 4096 rows, another process's commit, maintenance, more distinct (app, service) pairs or record field combinations than its capacity).",
                type: .counter)
            text.sample("permission_read_cache_clears_total", value: cache.clears)
        }
    }
}
