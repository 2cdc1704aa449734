/*
 * The hot path's SQLite read alone, in a loop: the statement the server runs for
 * GET .../authorizations/location (StoreSession+Authorizations.swift, `selectOneWithSettings`),
 * bound to random seeded (user, app) pairs, on one read-only connection inside one read
 * transaction, as the server's readers do. No HTTP, no Swift: what a lookup costs SQLite, so
 * that bench/sqlite-lookup.sh can set the cost at 1,000,000 rows beside the cost at 10,000.
 *
 *   lookup DATABASE USERS APPS MODE WARMUP COUNT
 *
 * MODE: mmap       the server's setting (PRAGMA mmap_size = 1 GiB);
 *       cache      SQLite's page cache instead (mmap_size = 0, cache_size = 480 MB);
 *       cache-thp  the page cache in one buffer given to SQLITE_CONFIG_PAGECACHE and marked
 *                  MADV_HUGEPAGE, so that cached pages sit on 2 MiB pages (fewer TLB misses).
 * WARMUP lookups run first, then COUNT timed ones. Prints one line:
 *   lookups=COUNT microseconds_per_lookup=X found=N anon_huge_kb=K
 * The generator is a fixed LCG, so every run asks for the same keys.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static const char *const select_sql =
    "SELECT a.status, a.level, a.provisional, a.once, a.expires_at, a.reason, a.purpose, "
    "a.declined_levels, a.updated_at, a.version, s.location_services_enabled, s.updated_at "
    "FROM (SELECT 1) LEFT JOIN authorizations AS a ON a.user = ?1 AND a.app = ?2 AND a.service = ?3 "
    "LEFT JOIN user_settings AS s ON s.user = ?1";

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned next_random(unsigned *state) {
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

static int fail(const char *what, sqlite3 *db) {
    fprintf(stderr, "lookup: %s: %s\n", what, db ? sqlite3_errmsg(db) : "error");
    return 1;
}

/* Gives SQLite one page-cache buffer on huge pages (sqlite.org/c3ref/c_config_covering_index_scan.html#sqliteconfigpagecache). */
static int configure_huge_page_cache(void) {
    const size_t slot = 4096 + 512, slots = 120000, huge = (size_t)2 << 20;
    size_t size = (slot * slots + huge - 1) & ~(huge - 1);
    char *raw = mmap(NULL, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return 1;
    char *aligned = (char *)(((unsigned long)raw + huge - 1) & ~(unsigned long)(huge - 1));
    if (madvise(aligned, size, MADV_HUGEPAGE) != 0) return 1;
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, aligned, (int)slot, (int)slots) != SQLITE_OK;
}

static long anon_huge_kb(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kb = 0;
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "AnonHugePages:", 14) == 0) kb = strtol(line + 14, NULL, 10);
    fclose(f);
    return kb;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: lookup DATABASE USERS APPS mmap|cache|cache-thp WARMUP COUNT\n");
        return 2;
    }
    const char *path = argv[1], *mode = argv[4];
    long users = atol(argv[2]), apps = atol(argv[3]), warmup = atol(argv[5]), count = atol(argv[6]);
    if (users <= 0 || apps <= 0 || warmup < 0 || count < 0) {
        fprintf(stderr, "lookup: USERS and APPS must be positive, WARMUP and COUNT not negative\n");
        return 2;
    }
    /* As the server does at start (csqlite_disable_memory_statistics): no global mutex around
     * every allocation for SQLite's memory statistics. */
    if (sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK) return fail("memstatus", NULL);
    const char *pragmas;
    if (strcmp(mode, "mmap") == 0) {
        pragmas = "PRAGMA mmap_size = 1073741824";
    } else if (strcmp(mode, "cache") == 0 || strcmp(mode, "cache-thp") == 0) {
        if (strcmp(mode, "cache-thp") == 0 && configure_huge_page_cache() != 0) return fail("huge page cache", NULL);
        pragmas = "PRAGMA mmap_size = 0; PRAGMA cache_size = -480000";
    } else {
        fprintf(stderr, "lookup: unknown mode %s\n", mode);
        return 2;
    }

    sqlite3 *db = NULL;
    sqlite3_stmt *statement = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) return fail("open", db);
    if (sqlite3_exec(db, pragmas, NULL, NULL, NULL) != SQLITE_OK) return fail("pragmas", db);
    if (sqlite3_prepare_v3(db, select_sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL) != SQLITE_OK)
        return fail("prepare", db);
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) return fail("begin", db);

    unsigned state = 12345;
    long found = 0;
    double started = 0;
    char user[32], app[48];
    for (long i = 0; i < warmup + count; i++) {
        if (i == warmup) started = now_seconds();
        int user_length = snprintf(user, sizeof user, "u%ld", (long)(next_random(&state) % (unsigned long)users));
        int app_length = snprintf(app, sizeof app, "com.example.app%ld", (long)(next_random(&state) % (unsigned long)apps));
        sqlite3_bind_text(statement, 1, user, user_length, SQLITE_STATIC);
        sqlite3_bind_text(statement, 2, app, app_length, SQLITE_STATIC);
        sqlite3_bind_text(statement, 3, "location", 8, SQLITE_STATIC);
        if (sqlite3_step(statement) != SQLITE_ROW) return fail("step", db);
        if (sqlite3_column_type(statement, 0) != SQLITE_NULL) found++;
        sqlite3_reset(statement);
    }
    double elapsed = now_seconds() - started;
    printf("lookups=%ld microseconds_per_lookup=%.3f found=%ld anon_huge_kb=%ld\n", count,
           count > 0 ? elapsed * 1e6 / (double)count : 0.0, found, anon_huge_kb());
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return found == warmup + count ? 0 : fail("a seeded key was not found", NULL);
}
