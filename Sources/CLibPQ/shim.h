#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H
/* Debian's libpq-dev puts the client headers in /usr/include/postgresql
   (https://www.postgresql.org/docs/15/libpq.html). */
#include <postgresql/libpq-fe.h>

/* The PG_DIAG_* field codes are character macros ('C', 'M', 'n'); expose the ones read as
   functions (https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQRESULTERRORFIELD). */
static inline int clibpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int clibpq_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int clibpq_diag_constraint_name(void) { return PG_DIAG_CONSTRAINT_NAME; }

/* A notice processor that drops notices: libpq's default prints them to stderr
   (https://www.postgresql.org/docs/15/libpq-notice-processing.html). */
static inline void clibpq_ignore_notice(void *arg, const char *message) { (void)arg; (void)message; }
static inline void clibpq_ignore_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, clibpq_ignore_notice, NULL);
}

#endif
