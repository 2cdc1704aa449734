#ifndef CSQLITE_WAL_GATHER_H
#define CSQLITE_WAL_GATHER_H
#include <sqlite3.h>

/// A SQLite VFS over the default one that gathers the writes SQLite makes to a WAL file, one
/// `pwrite` per frame header and one per page, into one buffer, and hands them to the file in
/// 64 KiB writes when SQLite next syncs, reads, truncates or sizes the file (or a write does not
/// follow the last one). Every other file, and every other operation, goes straight through.
///
/// Safe only on a connection with `PRAGMA synchronous = FULL` (or EXTRA): SQLite then syncs the
/// WAL before its wal-index makes a commit's frames visible to other connections, so no reader
/// can see a frame that is still in the buffer. `Database` checks this for the connection it
/// opens with this VFS. A write that fails when the buffer is handed to the file is reported by
/// the call that handed it (the commit's sync), so the commit fails as it would have.

/// The name to open connections with (`sqlite3_open_v2`'s `zVfs`).
extern const char *const csqlite_wal_gather_vfs_name;

/// Registers the VFS (not as the default), once per process; later calls return the first
/// call's result. SQLITE_OK, or SQLite's error code.
int csqlite_wal_gather_register(void);

/// For tests: the writes SQLite asked of `wal` and the writes made to the file for them, and
/// the bytes still buffered. Returns 0 when `wal` is not a WAL file opened through this VFS.
int csqlite_wal_gather_counts(
    sqlite3_file *wal, sqlite3_int64 *requested, sqlite3_int64 *performed, sqlite3_int64 *pending);

#endif
