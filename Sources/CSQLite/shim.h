#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro cast Swift cannot import; expose it as a function.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
/// SQLITE_STATIC likewise: the caller keeps the bound bytes valid until they are cleared.
static inline sqlite3_destructor_type csqlite_static(void) { return SQLITE_STATIC; }

/// sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's memory statistics,
/// which take a global mutex on every allocation (SQLITE_CONFIG_MEMSTATUS,
/// https://www.sqlite.org/c3ref/c_config_covering_index_scan.html).
/// Only works before the library is initialized; returns SQLITE_MISUSE after.
static inline int csqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

#endif
