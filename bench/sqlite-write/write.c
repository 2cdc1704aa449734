/*
 * What a durable write costs SQLite by itself: the rows the service writes for a settings PUT
 * that creates a record (bench/hot-path/put.lua), with no HTTP, no Swift, no encryption and no
 * hashing, in transactions of BATCH writes each, the way the service's writer batches them
 * (DatabaseWriter.swift: one BEGIN IMMEDIATE, a SAVEPOINT per write, one COMMIT). Against the
 * figures of bench/peer.sh it bounds what group commit can buy on this machine: the service
 * cannot spend less CPU on a write than its storage does at the batch it reaches.
 *
 *   write DATABASE APPS BATCH COUNT
 *
 * Per write, for a user never written before ("f<run>-<n>", the shape of put.lua's users) and a
 * random one of APPS seeded apps, the statements the service runs for it (StoreSession+*.swift;
 * counted with an LD_PRELOAD shim around sqlite3_step, see bench/RESULTS.md), except those that
 * feed its read cache:
 *   - the record's primary-key read, the user's settings read, and the upsert of the new record
 *     (denied, userSet);
 *   - the user's audit key read (none yet), and the insert of a new key: a pseudonym that starts
 *     with the time, as AuditKeyring.newSubject makes, and an 80-character wrapped key;
 *   - the audit entry, with the schema's trigger that checks its seq, a 64-hex-digit hash and
 *     previous hash and an 88-character sealed field, as the service stores them;
 *   - the read of the record's pending prompt (there is none), which a change cancels.
 * The connection is set up as the writer's: WAL, synchronous = FULL, an 8 MiB page cache,
 * secure_delete, no automatic checkpoint; a passive
 * checkpoint runs after the commit that takes the WAL past 8,000 pages (the service's
 * Checkpointer does the same on a thread of its own, on the same CPU in the benches).
 * COUNT writes are timed after a warm-up of 2,000. Prints one line:
 *   writes=COUNT batch=BATCH writes_per_second=W cpu_us_per_write=C user_us_per_write=U
 *   wal_pages_per_write=P checkpoints=K
 * CPU time is the process's (getrusage), the kernel's part of each fsync and write included.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static const char *const read_record_sql =
    "SELECT status, level, provisional, once, expires_at, reason, purpose, declined_levels, updated_at, "
    "version FROM authorizations WHERE user = ?1 AND app = ?2 AND service = ?3";
static const char *const upsert_record_sql =
    "INSERT INTO authorizations (user, app, service, status, level, provisional, once, expires_at, reason, "
    "purpose, declined_levels, updated_at, version, purpose_language, button_confirmed, purpose_hash) "
    "VALUES (?1, ?2, 'location', 'denied', NULL, 0, 0, NULL, 'userSet', NULL, '', ?3, 1, NULL, 0, NULL) "
    "ON CONFLICT (user, app, service) DO UPDATE SET status = excluded.status, level = excluded.level, "
    "provisional = excluded.provisional, once = excluded.once, expires_at = excluded.expires_at, "
    "reason = excluded.reason, purpose = excluded.purpose, declined_levels = excluded.declined_levels, "
    "updated_at = excluded.updated_at, version = excluded.version, "
    "purpose_language = excluded.purpose_language, button_confirmed = excluded.button_confirmed, "
    "purpose_hash = excluded.purpose_hash";
static const char *const read_settings_sql =
    "SELECT location_services_enabled, updated_at, locale FROM user_settings WHERE user = ?1";
static const char *const read_pending_prompt_sql =
    "SELECT id, kind, requested_level, options, purpose, purpose_key, state, created_at, expires_at FROM prompts "
    "WHERE user = ?1 AND app = ?2 AND service = ?3 AND state = 'pending'";
static const char *const read_subject_sql = "SELECT pseudonym, wrapped_key FROM audit_subjects WHERE user = ?1";
static const char *const insert_subject_sql =
    "INSERT INTO audit_subjects (user, pseudonym, wrapped_key, created_at) VALUES (?1, ?2, ?3, ?4)";
static const char *const insert_audit_sql =
    "INSERT INTO audit (seq, at, actor_key, actor_role, action, user, app, service, from_status, from_level, "
    "from_provisional, from_once, to_status, to_level, to_provisional, to_once, reason, purpose, prompt_id, "
    "request_id, detail, purpose_hash, prev_hash, hash, personal) "
    "VALUES (?1, ?2, '9eb135f5ec119f96', 'admin', 'authorization.set', ?3, ?4, 'location', 'notDetermined', "
    "NULL, 0, 0, 'denied', NULL, 0, 0, 'userSet', NULL, NULL, ?5, NULL, NULL, ?6, ?7, ?8)";

enum { checkpoint_pages = 8000, warmup_writes = 2000 };

static sqlite3 *db;
static sqlite3_stmt *read_record, *read_settings, *read_pending_prompt, *upsert_record, *read_subject, *insert_subject,
    *insert_audit, *savepoint, *release;
static int wal_pages, checkpoints;
static long long wal_pages_total;

static void fail(const char *what) {
    fprintf(stderr, "write: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void exec(const char *sql) {
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) fail(sql);
}

static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL) != SQLITE_OK) fail(sql);
    return statement;
}

static void finish(sqlite3_stmt *statement, int expected) {
    int rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {}
    if (rc != SQLITE_DONE || (expected >= 0 && sqlite3_changes(db) != expected)) fail(sqlite3_sql(statement));
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
}

static int wal_hook(void *unused, sqlite3 *handle, const char *name, int pages) {
    (void)unused;
    (void)handle;
    (void)name;
    wal_pages_total += pages - wal_pages;
    wal_pages = pages;
    return SQLITE_OK;
}

static unsigned next_random(unsigned long long *state) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(*state >> 33);
}

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void cpu_seconds(double *total, double *user) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    *user = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec * 1e-6;
    *total = *user + (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec * 1e-6;
}

static void hex(char *out, unsigned long long *state, int digits) {
    static const char alphabet[] = "0123456789abcdef";
    for (int i = 0; i < digits; i++) out[i] = alphabet[next_random(state) & 15];
    out[digits] = 0;
}

/* One write: the reads and rows of a settings PUT for a new user, in its own savepoint. */
static void write_one(long long n, long long seq, int apps, long long run, unsigned long long *state, char *prev_hash) {
    char user[64], app[64], pseudonym[40], wrapped[96], request[40], hash[65], personal[96];
    long long now = (long long)(seconds(CLOCK_REALTIME) * 1000);
    snprintf(user, sizeof user, "f%lld-%lld", run, n);
    snprintf(app, sizeof app, "com.example.app%u", next_random(state) % (unsigned)apps);
    snprintf(pseudonym, sizeof pseudonym, "p_%012llx", (unsigned long long)now & 0xffffffffffffull);
    hex(pseudonym + 14, state, 20);
    memcpy(wrapped, "v1.", 3);
    hex(wrapped + 3, state, 77);
    snprintf(request, sizeof request, "%08x-bench", next_random(state));
    hex(hash, state, 64);
    memcpy(personal, "v1.", 3);
    hex(personal + 3, state, 85);

    finish(savepoint, -1);
    sqlite3_bind_text(read_record, 1, user, -1, SQLITE_STATIC);
    sqlite3_bind_text(read_record, 2, app, -1, SQLITE_STATIC);
    sqlite3_bind_text(read_record, 3, "location", -1, SQLITE_STATIC);
    finish(read_record, -1);
    sqlite3_bind_text(read_settings, 1, user, -1, SQLITE_STATIC);
    finish(read_settings, -1);
    sqlite3_bind_text(upsert_record, 1, user, -1, SQLITE_STATIC);
    sqlite3_bind_text(upsert_record, 2, app, -1, SQLITE_STATIC);
    sqlite3_bind_int64(upsert_record, 3, now);
    finish(upsert_record, 1);
    sqlite3_bind_text(read_subject, 1, user, -1, SQLITE_STATIC);
    finish(read_subject, -1);
    sqlite3_bind_text(insert_subject, 1, user, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert_subject, 2, pseudonym, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert_subject, 3, wrapped, -1, SQLITE_STATIC);
    sqlite3_bind_int64(insert_subject, 4, now);
    finish(insert_subject, 1);
    sqlite3_bind_int64(insert_audit, 1, seq);
    sqlite3_bind_int64(insert_audit, 2, now);
    sqlite3_bind_text(insert_audit, 3, pseudonym, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert_audit, 4, app, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert_audit, 5, request, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert_audit, 6, prev_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert_audit, 7, hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert_audit, 8, personal, -1, SQLITE_STATIC);
    finish(insert_audit, 1);
    sqlite3_bind_text(read_pending_prompt, 1, user, -1, SQLITE_STATIC);
    sqlite3_bind_text(read_pending_prompt, 2, app, -1, SQLITE_STATIC);
    sqlite3_bind_text(read_pending_prompt, 3, "location", -1, SQLITE_STATIC);
    finish(read_pending_prompt, -1);
    finish(release, -1);
    memcpy(prev_hash, hash, 65);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: write DATABASE APPS BATCH COUNT\n");
        return 2;
    }
    int apps = atoi(argv[2]), batch = atoi(argv[3]);
    long long count = atoll(argv[4]);
    if (apps < 1 || batch < 1 || count < 1) {
        fprintf(stderr, "write: APPS, BATCH and COUNT must be positive\n");
        return 2;
    }
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) fail("open");
    /* The writer's settings (Database.swift, DatabaseConfiguration.swift). */
    exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 0;"
         "PRAGMA cache_size = -8192; PRAGMA temp_store = MEMORY; PRAGMA secure_delete = ON;"
         "PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000");
    sqlite3_wal_hook(db, wal_hook, NULL);
    savepoint = prepare("SAVEPOINT batch_item");
    release = prepare("RELEASE batch_item");
    read_record = prepare(read_record_sql);
    read_settings = prepare(read_settings_sql);
    read_pending_prompt = prepare(read_pending_prompt_sql);
    upsert_record = prepare(upsert_record_sql);
    read_subject = prepare(read_subject_sql);
    insert_subject = prepare(insert_subject_sql);
    insert_audit = prepare(insert_audit_sql);

    long long seq = 0;
    char prev_hash[65] = "0000000000000000000000000000000000000000000000000000000000000000";
    sqlite3_stmt *head = prepare("SELECT coalesce(max(seq), 0) FROM audit");
    if (sqlite3_step(head) != SQLITE_ROW) fail("max(seq)");
    seq = sqlite3_column_int64(head, 0);
    sqlite3_finalize(head);

    unsigned long long state = (unsigned long long)time(NULL) * 2654435761ull;
    long long run = (long long)time(NULL), n = 0;
    double cpu_start = 0, user_start = 0, wall_start = 0;
    long long pages_start = 0;
    int checkpoints_start = 0;
    for (long long done = 0; done < warmup_writes + count;) {
        if (done >= warmup_writes && wall_start == 0) {
            cpu_seconds(&cpu_start, &user_start);
            wall_start = seconds(CLOCK_MONOTONIC);
            pages_start = wal_pages_total;
            checkpoints_start = checkpoints;
        }
        exec("BEGIN IMMEDIATE");
        for (int i = 0; i < batch; i++) write_one(++n, ++seq, apps, run, &state, prev_hash);
        exec("COMMIT");
        done += batch;
        if (wal_pages >= checkpoint_pages) {
            exec("PRAGMA wal_checkpoint(PASSIVE)");
            wal_pages = 0;
            checkpoints++;
        }
    }
    double cpu_end, user_end;
    cpu_seconds(&cpu_end, &user_end);
    double wall = seconds(CLOCK_MONOTONIC) - wall_start;
    long long timed = n - (warmup_writes + batch - 1) / batch * batch;
    printf("writes=%lld batch=%d writes_per_second=%.0f cpu_us_per_write=%.1f user_us_per_write=%.1f "
           "wal_pages_per_write=%.2f checkpoints=%d\n",
           timed, batch, timed / wall, (cpu_end - cpu_start) * 1e6 / timed, (user_end - user_start) * 1e6 / timed,
           (double)(wal_pages_total - pages_start) / timed, checkpoints - checkpoints_start);
    sqlite3_close_v2(db);
    return 0;
}
