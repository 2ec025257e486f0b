import ArgumentParser
import Foundation
import Latchkey
import LatchkeyAgent

/// `access log`: decrypts and prints the agent's access log (docs/agent.md, "The access log").
struct AccessLogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Print the agent's access log: every secret read, write and access decision, with who asked.",
        discussion: """
            The log is encrypted to a key pair kept in the keychain; this command opens the keychain in this \
            process with your credential (LATCHKEY_KEY_FILE, LATCHKEY_PASSPHRASE_FILE, LATCHKEY_PASSPHRASE, else a \
            prompt on the terminal), also while the agent runs, and reads <keychain>.access-log.1 then \
            <keychain>.access-log. One line per entry: time, event (read, write, delete, access), the items \
            (class and naming attributes, or a Secret Service item's label) or the group, the application (path, \
            SHA-256, pid, parent chain) and the decision (policy, once, always, denied, denied-always); --json \
            prints one JSON object per line. Damaged parts (a crash mid-write) and entries that fail \
            authentication (tampered) are named on standard error and skipped. Exit status: 0 when everything \
            read, 65 when something was skipped, 44 when the keychain holds no access-log key yet (the agent makes \
            it when the keychain is first unlocked), 1 for any other error (a wrong passphrase).
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @Option(
        name: .customLong("since"),
        help: ArgumentHelp(
            "Only entries since this time: an ISO 8601 date (2026-11-28T03:00:00Z, 2026-11-28) or a duration "
                + "before now (30s, 10m, 2h, 3d).",
            valueName: "when"
        )
    )
    var since: String?
    @Option(
        name: .customLong("app"),
        help: ArgumentHelp("Only entries of applications whose path is or contains this text.", valueName: "path")
    )
    var app: String?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let since, Self.date(since, now: Date()) == nil {
            throw ValidationError("--since takes an ISO 8601 date or a duration such as 10m, 2h or 3d.")
        }
    }

    func run() throws {
        var skipped = false
        try runReportingErrors {
            let path = keychain.path
            guard FileManager.default.fileExists(atPath: path) else {
                throw KeychainName.missing(path, named: keychain.isNamed)
            }
            var options = keychain.storeOptions
            options.accessGroups = [AccessLogKeys.accessGroup]
            let store = try KeychainOpener.open(path: path, named: keychain.isNamed, options: options, unlock: true)
            let reader = try AccessLogReader(privateKey: try AccessLogKeys.privateKey(in: store))
            let log = reader.read(AccessLogFiles(keychainPath: AgentLocation.canonical(path)))
            let start = since.flatMap { Self.date($0, now: Date()) }
            var out = ""
            for entry in log.entries {
                if let start, entry.time < start { continue }
                if let app, entry.application.path != app, !entry.application.path.contains(app) { continue }
                out += output.json ? try Self.json(entry) : Self.line(entry)
                out += "\n"
            }
            ItemOutput.write(out)
            if output.json, !log.problems.isEmpty {
                let message =
                    "Skipped what could not be read of the access log: "
                    + log.problems.map { "\($0)" }.joined(separator: "; ") + "."
                reportError(KeychainError(.decode, message), exitStatus: ExitStatus.damagedSkipped)
            } else {
                for problem in log.problems { warn("access log: \(problem)") }
            }
            skipped = !log.problems.isEmpty
        }
        if skipped { throw ExitCode(ExitStatus.damagedSkipped) }
    }

    /// `text` as a date: ISO 8601 (with or without fractional seconds, or a day), or a duration before `now`.
    static func date(_ text: String, now: Date) -> Date? {
        if let unit = text.last, let count = Double(text.dropLast()), count >= 0 {
            let seconds: Double? =
                switch unit {
                case "s": 1
                case "m": 60
                case "h": 3600
                case "d": 86400
                default: nil
                }
            if let seconds { return now.addingTimeInterval(-count * seconds) }
        }
        let formatter = ISO8601DateFormatter()
        for options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate],
        ] as [ISO8601DateFormatter.Options] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// One entry as a line: `2026-11-28T03:20:11Z read genp svce=api acct=alice  /usr/bin/secret-tool
    /// (sha256 ab12cd34ef56…) pid 4242 bash → secret-tool  policy`.
    static func line(_ entry: AccessLogEntry) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        var text = formatter.string(from: entry.time) + " " + entry.event.name
        if let group = entry.group { text += " group=" + quoted(group) }
        let items = entry.items.map { item in
            ([item.itemClass] + item.fields.map { "\($0.name)=\(quoted($0.value))" }).joined(separator: " ")
        }
        if !items.isEmpty { text += " " + items.joined(separator: "; ") }
        let application = entry.application
        text += "  " + quoted(application.path)
        if let digest = application.sha256 { text += " (sha256 \(digest.prefix(12))…)" }
        text += " pid \(application.process)"
        if !application.ancestry.isEmpty { text += " " + application.ancestry.joined(separator: " → ") }
        if entry.channel == .secretService { text += " via secret-service" }
        return text + "  " + entry.decision.name
    }

    /// One entry as a JSON object on one line.
    static func json(_ entry: AccessLogEntry) throws -> String {
        var application: [String: JSONValue] = [
            "path": .string(entry.application.path),
            "pid": .integer(Int64(entry.application.process)),
            "ancestry": .array(entry.application.ancestry.map { .string($0) }),
        ]
        if let digest = entry.application.sha256 { application["sha256"] = .string(digest) }
        var object: [String: JSONValue] = [
            "time": .string(ItemOutput.isoDate(entry.time)),
            "event": .string(entry.event.name),
            "decision": .string(entry.decision.name),
            "channel": .string(entry.channel.name),
            "application": .object(application),
            "items": .array(
                entry.items.map { item in
                    var fields: [String: JSONValue] = [:]
                    for field in item.fields { fields[field.name] = .string(field.value) }
                    return .object(["class": .string(item.itemClass), "attributes": .object(fields)])
                }
            ),
        ]
        if let group = entry.group { object["group"] = .string(group) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(JSONValue.object(object)), as: UTF8.self)
    }

    /// `value` as is, or as a JSON string when it holds spaces, quotes, `=` or control characters.
    private static func quoted(_ value: String) -> String {
        let plain =
            !value.isEmpty && !value.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.value < 0x20 }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard !plain, let data = try? encoder.encode(value) else { return value }
        return String(decoding: data, as: UTF8.self)
    }
}
