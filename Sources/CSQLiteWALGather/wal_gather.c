#include "CSQLiteWALGather.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The most bytes buffered before they are handed on (a group commit of 256 writes makes about
 * 600 frames, 2.4 MiB). */
#define GATHER_CAPACITY (1024 * 1024)
/* The most bytes one hand-off writes: the unix VFS masks a write's length with 0x1ffff. */
#define GATHER_SLICE (64 * 1024)

const char *const csqlite_wal_gather_vfs_name = "permission-wal-gather";

/* Our file: the base (our methods), then the default VFS's file right after it. */
typedef struct GatherFile {
    sqlite3_file base;
    sqlite3_file *real;
    int isWAL;
    unsigned char *buffer; /* GATHER_CAPACITY bytes once the first WAL write comes */
    sqlite3_int64 start;   /* the file offset of buffer[0] */
    sqlite3_int64 length;  /* bytes buffered */
    sqlite3_int64 requested;
    sqlite3_int64 performed;
} GatherFile;

static sqlite3_vfs *underlying;
static sqlite3_vfs gatherVFS;
static int registration = SQLITE_OK;
static pthread_once_t registered = PTHREAD_ONCE_INIT;

#define REAL(p) (((GatherFile *)(p))->real)

/* Hands the buffered bytes to the file, in order, and empties the buffer whatever happens: a
 * failed write fails the call that flushed, and SQLite then treats the transaction as failed. */
static int flush(GatherFile *file) {
    int rc = SQLITE_OK;
    sqlite3_int64 done = 0;
    while (done < file->length && rc == SQLITE_OK) {
        sqlite3_int64 slice = file->length - done;
        if (slice > GATHER_SLICE) slice = GATHER_SLICE;
        rc = file->real->pMethods->xWrite(file->real, file->buffer + done, (int)slice, file->start + done);
        file->performed++;
        done += slice;
    }
    file->length = 0;
    return rc;
}

static int gatherClose(sqlite3_file *p) {
    GatherFile *file = (GatherFile *)p;
    int rc = flush(file);
    int closed = file->real->pMethods->xClose(file->real);
    free(file->buffer);
    file->buffer = NULL;
    return rc != SQLITE_OK ? rc : closed;
}

static int gatherRead(sqlite3_file *p, void *out, int amount, sqlite3_int64 offset) {
    int rc = flush((GatherFile *)p);
    return rc != SQLITE_OK ? rc : REAL(p)->pMethods->xRead(REAL(p), out, amount, offset);
}

static int gatherWrite(sqlite3_file *p, const void *data, int amount, sqlite3_int64 offset) {
    GatherFile *file = (GatherFile *)p;
    if (!file->isWAL) return file->real->pMethods->xWrite(file->real, data, amount, offset);
    file->requested++;
    /* Only a write that continues the buffered run joins it; anything else goes after it. */
    if (file->length > 0 && (offset != file->start + file->length || file->length + amount > GATHER_CAPACITY)) {
        int rc = flush(file);
        if (rc != SQLITE_OK) return rc;
    }
    if (amount > GATHER_SLICE) {
        file->performed++;
        return file->real->pMethods->xWrite(file->real, data, amount, offset);
    }
    if (file->buffer == NULL) {
        file->buffer = malloc(GATHER_CAPACITY);
        if (file->buffer == NULL) {
            file->performed++;
            return file->real->pMethods->xWrite(file->real, data, amount, offset);
        }
    }
    if (file->length == 0) file->start = offset;
    /* Copied: SQLite reuses the frame header's and the page's memory once this returns. */
    memcpy(file->buffer + file->length, data, (size_t)amount);
    file->length += amount;
    return SQLITE_OK;
}

static int gatherTruncate(sqlite3_file *p, sqlite3_int64 size) {
    int rc = flush((GatherFile *)p);
    return rc != SQLITE_OK ? rc : REAL(p)->pMethods->xTruncate(REAL(p), size);
}

static int gatherSync(sqlite3_file *p, int flags) {
    int rc = flush((GatherFile *)p);
    return rc != SQLITE_OK ? rc : REAL(p)->pMethods->xSync(REAL(p), flags);
}

static int gatherFileSize(sqlite3_file *p, sqlite3_int64 *size) {
    int rc = flush((GatherFile *)p);
    return rc != SQLITE_OK ? rc : REAL(p)->pMethods->xFileSize(REAL(p), size);
}

static int gatherLock(sqlite3_file *p, int level) { return REAL(p)->pMethods->xLock(REAL(p), level); }
static int gatherUnlock(sqlite3_file *p, int level) { return REAL(p)->pMethods->xUnlock(REAL(p), level); }
static int gatherCheckReservedLock(sqlite3_file *p, int *out) {
    return REAL(p)->pMethods->xCheckReservedLock(REAL(p), out);
}

/* File controls may read, size or write the file (size hints, persisted WAL): flushed first. */
static int gatherFileControl(sqlite3_file *p, int op, void *arg) {
    int rc = flush((GatherFile *)p);
    return rc != SQLITE_OK ? rc : REAL(p)->pMethods->xFileControl(REAL(p), op, arg);
}

static int gatherSectorSize(sqlite3_file *p) { return REAL(p)->pMethods->xSectorSize(REAL(p)); }
static int gatherDeviceCharacteristics(sqlite3_file *p) { return REAL(p)->pMethods->xDeviceCharacteristics(REAL(p)); }
static int gatherShmMap(sqlite3_file *p, int page, int size, int extend, void volatile **out) {
    return REAL(p)->pMethods->xShmMap(REAL(p), page, size, extend, out);
}
static int gatherShmLock(sqlite3_file *p, int offset, int n, int flags) {
    return REAL(p)->pMethods->xShmLock(REAL(p), offset, n, flags);
}
static void gatherShmBarrier(sqlite3_file *p) { REAL(p)->pMethods->xShmBarrier(REAL(p)); }
static int gatherShmUnmap(sqlite3_file *p, int deleteFlag) { return REAL(p)->pMethods->xShmUnmap(REAL(p), deleteFlag); }
static int gatherFetch(sqlite3_file *p, sqlite3_int64 offset, int amount, void **out) {
    int rc = flush((GatherFile *)p);
    if (rc != SQLITE_OK) return rc;
    return REAL(p)->pMethods->xFetch(REAL(p), offset, amount, out);
}
static int gatherUnfetch(sqlite3_file *p, sqlite3_int64 offset, void *pointer) {
    return REAL(p)->pMethods->xUnfetch(REAL(p), offset, pointer);
}

static const sqlite3_io_methods gatherMethods = {
    3,
    gatherClose,
    gatherRead,
    gatherWrite,
    gatherTruncate,
    gatherSync,
    gatherFileSize,
    gatherLock,
    gatherUnlock,
    gatherCheckReservedLock,
    gatherFileControl,
    gatherSectorSize,
    gatherDeviceCharacteristics,
    gatherShmMap,
    gatherShmLock,
    gatherShmBarrier,
    gatherShmUnmap,
    gatherFetch,
    gatherUnfetch,
};

static int gatherOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *p, int flags, int *outFlags) {
    (void)vfs;
    GatherFile *file = (GatherFile *)p;
    memset(file, 0, sizeof(*file));
    file->real = (sqlite3_file *)(file + 1);
    int rc = underlying->xOpen(underlying, name, file->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        /* SQLite closes a file whose open failed only when its methods are set; ours are not. */
        if (file->real->pMethods != NULL) file->real->pMethods->xClose(file->real);
        return rc;
    }
    if (file->real->pMethods->iVersion < 3) {
        /* Every method above forwards to a version 3 file (the unix VFS's is). */
        file->real->pMethods->xClose(file->real);
        return SQLITE_CANTOPEN;
    }
    file->isWAL = (flags & SQLITE_OPEN_WAL) != 0;
    p->pMethods = &gatherMethods;
    return SQLITE_OK;
}

static void registerOnce(void) {
    underlying = sqlite3_vfs_find(NULL);
    if (underlying == NULL) {
        registration = SQLITE_ERROR;
        return;
    }
    gatherVFS = *underlying;
    gatherVFS.pNext = NULL;
    gatherVFS.zName = csqlite_wal_gather_vfs_name;
    gatherVFS.szOsFile = (int)sizeof(GatherFile) + underlying->szOsFile;
    gatherVFS.xOpen = gatherOpen;
    registration = sqlite3_vfs_register(&gatherVFS, 0);
}

int csqlite_wal_gather_register(void) {
    pthread_once(&registered, registerOnce);
    return registration;
}

int csqlite_wal_gather_counts(
    sqlite3_file *wal, sqlite3_int64 *requested, sqlite3_int64 *performed, sqlite3_int64 *pending) {
    if (wal == NULL || wal->pMethods != &gatherMethods || !((GatherFile *)wal)->isWAL) return 0;
    GatherFile *file = (GatherFile *)wal;
    *requested = file->requested;
    *performed = file->performed;
    *pending = file->length;
    return 1;
}
