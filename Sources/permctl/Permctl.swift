import ArgumentParser

/// `permctl`: the operator's command line for the permission service, in the spirit of
/// `tccutil`. Every verb talks to the server through `PermissionClient`.
struct Permctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "permctl",
        abstract: "Inspect and administer the permission service (per-user app permissions, the iOS TCC model).",
        discussion: """
            The server URL and API key come from --url / --key or PERMISSION_URL / PERMISSION_KEY \
            (prefer the environment for the key: flags are visible in ps), or the key from the first \
            line of a file: --key-file or PERMISSION_KEY_FILE (a mounted secret). Output is a table; \
            --json prints the API's JSON for scripts. --url, --key, --key-file, --json and --timeout \
            go before the verb or after it.

            Exit codes: 0 success; 64 usage error (a malformed --url too); 66 the key file cannot be read; \
            69 server unavailable (connection refused, \
            timeout, cut response, 503); 73 an output (a file, or the standard output an export streams to) cannot \
            be written; 77 access denied (401 wrong or missing key, 403 role); \
            1 any other HTTP error (404, 409, 412, 422, ...) or an unreadable answer.

            Example:
              export PERMISSION_URL=http://127.0.0.1:8080 PERMISSION_KEY=...
              permctl status u42 com.example.maps location
              permctl evaluate --app com.example.maps --user u42 --action location.always
              permctl reset location --app com.example.maps
            """,
        subcommands: [
            StatusCommand.self, EvaluateCommand.self, RequestCommand.self, ButtonCommand.self, PromptsCommand.self,
            DecideCommand.self, LifecycleCommand.self, SetCommand.self,
            RevokeCommand.self, ResetCommand.self, AppsCommand.self, ServicesCommand.self, PoliciesCommand.self,
            AuditCommand.self, KeysCommand.self, UsersCommand.self,
        ]
    )

    /// `--url`, `--key`, `--key-file`, `--json` and `--timeout` given before the verb (docs/client.md's
    /// synopsis) or after it: ArgumentParser reads a parent command's options anywhere on the
    /// line, and a verb's `@OptionGroup` of the same type is this value again.
    @OptionGroup var connection: ConnectionOptions

    /// `permctl` with no verb: a usage error (64) with the usage line; `permctl --help` is the
    /// help, and exits 0.
    func run() throws {
        throw ValidationError("name a verb (permctl --help lists them)")
    }
}
