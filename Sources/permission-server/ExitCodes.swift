/// Exit statuses from sysexits(3) used by the subcommands.
enum ExitCodes {
    /// EX_USAGE: a bad flag, environment variable or config file value.
    static let usage: Int32 = 64
    /// EX_DATAERR: the database was written by a newer version of this program, or (`audit
    /// verify`) the file is not a permission-server database.
    static let dataError: Int32 = 65
    /// EX_NOINPUT: the database file to back up or verify does not exist, or (`audit verify`)
    /// cannot be read.
    static let noInput: Int32 = 66
    /// EX_UNAVAILABLE: the address cannot be bound, another server serves the database file, or
    /// (`audit verify`) the PostgreSQL database cannot be reached.
    static let unavailable: Int32 = 69
    /// EX_CANTCREAT: the backup target exists and `--force` was not given, or the copy target
    /// database is not empty.
    static let cannotCreate: Int32 = 73
    /// EX_CONFIG: the audit server key is missing, malformed, unreadable, or not the one the
    /// database's audit keys were wrapped with.
    static let configuration: Int32 = 78
}
