import ArgumentParser

/// `permission-server settings-table` (hidden): prints docs/configuration.md's settings table from
/// ``Settings/all``, so the documentation is generated from the same list as `--help`.
struct SettingsTableCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings-table",
        abstract: "Print the settings as the Markdown table of docs/configuration.md.",
        shouldDisplay: false
    )

    func run() {
        print(Self.markdown(Settings.all), terminator: "")
    }

    /// One row per setting: flag, environment variable, default, help.
    static func markdown(_ settings: [Setting]) -> String {
        var text = "| flag | environment variable | default | meaning |\n|---|---|---|---|\n"
        for setting in settings {
            let value = setting.defaultValue.map { "`\($0)`" } ?? "none"
            let flag = setting.isSecret ? "(no flag)" : "`--\(setting.flag)`"
            text += "| \(flag) | `\(setting.environment)` | \(value) | \(setting.described.replacingPipes) |\n"
        }
        return text
    }
}

extension String {
    /// The text with `|` escaped for a Markdown table cell.
    fileprivate var replacingPipes: String {
        var result = ""
        for character in self { result += character == "|" ? "\\|" : String(character) }
        return result
    }
}
