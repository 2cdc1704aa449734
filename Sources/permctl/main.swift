// The `permctl` executable: see Permctl and docs/client.md, "Command line (permctl)".
#if canImport(Glibc)
import Glibc
#endif

// A reader that went away (`permctl audit --follow | head`) is a write error, exit 73, not a
// signal: the standard output is checked after every command and every followed entry.
signal(SIGPIPE, SIG_IGN)
Permctl.main()
Output.finishStandardOutput()
