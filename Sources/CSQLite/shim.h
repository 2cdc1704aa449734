#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro cast Swift cannot import; expose it as a function.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
/// SQLITE_STATIC likewise: the caller keeps the bound bytes valid until they are cleared.
static inline sqlite3_destructor_type csqlite_static(void) { return SQLITE_STATIC; }

#endif
