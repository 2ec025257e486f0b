import ArgumentParser
import Foundation
import Latchkey
import LatchkeySync

/// `latchkey sync`: sync of synchronizable items through PostgreSQL (docs/sync.md).
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync synchronizable items with your other machines through PostgreSQL, end-to-end encrypted.",
        discussion: """
            Items added with kSecAttrSynchronizable = true (--synchronizable on the add commands) and an \
            accessibility without ThisDeviceOnly are sent, sealed under a sync key the server never sees. Sync \
            is off until `sync setup` (first machine) or `sync join` (the others). The commands work on the \
            keychain file in this process; see docs/sync.md.
            """,
        subcommands: [
            SyncSetupCommand.self, SyncJoinCommand.self, SyncNowCommand.self, SyncStatusCommand.self,
            SyncMachinesCommand.self, SyncRemoveMachineCommand.self, SyncLeaveCommand.self,
            SyncRotateEnrollmentSecretCommand.self,
        ]
    )
}

/// The keychain options and the opened file's sync, shared by every `sync` subcommand.
struct SyncContext: ParsableArguments {
    @OptionGroup var keychain: KeychainOptions

    /// The sync of the keychain file, opened and unlocked in this process.
    func sync() throws -> KeychainSync {
        try KeychainSync(service: keychain.open())
    }
}

/// Prints `value` as one line of sorted-key JSON with ISO 8601 dates.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
}

/// Prints `text` on standard output.
func printLine(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// `latchkey sync setup <URL>`.
struct SyncSetupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Turn sync on, as the first machine of a new sync keychain.",
        discussion: """
            Migrates the database's schema, makes a random sync key, and prints a recovery secret (keep it \
            offline: with it and the database, every synchronized item can be recovered) and an enrollment \
            secret for unattended machines, once. The URL (with its password) is kept sealed in the keychain.
            """
    )

    @OptionGroup var context: SyncContext
    @OptionGroup var output: OutputOptions
    @Argument(help: "The PostgreSQL URL: postgresql://user:password@host:port/database") var url: String
    @Option(help: "How many machines the enrollment secret may enrol (default: unlimited).") var enrollmentUses: Int?

    func run() throws {
        try runReportingErrors {
            let sync = try context.sync()
            let (url, uses) = (url, enrollmentUses)
            let setup = try awaitingResult { () async throws(KeychainError) in
                try await sync.setup(databaseURL: url, enrollmentUses: uses)
            }
            if output.json { return try printJSON(setup) }
            printLine(
                """
                Sync is set up: sync keychain \(setup.keychain), this machine \(setup.machine).
                Recovery secret (shown once; keep it offline, it recovers every synchronized item):
                  \(setup.recoverySecret)
                Enrollment secret (for unattended machines: latchkey sync join <URL> --enrollment-secret-stdin):
                  \(setup.enrollmentSecret)
                """
            )
        }
    }
}

/// `latchkey sync join <URL>`.
struct SyncJoinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join an existing sync keychain with its enrollment or recovery secret (read from standard input)."
    )

    @OptionGroup var context: SyncContext
    @OptionGroup var output: OutputOptions
    @Argument(help: "The PostgreSQL URL of the sync database.") var url: String
    @Flag(help: "Read the enrollment secret from standard input.") var enrollmentSecretStdin = false
    @Flag(help: "Read the recovery secret from standard input.") var recoverySecretStdin = false

    func validate() throws {
        guard enrollmentSecretStdin != recoverySecretStdin else {
            throw ValidationError("give exactly one of --enrollment-secret-stdin and --recovery-secret-stdin")
        }
    }

    func run() throws {
        try runReportingErrors {
            let text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let secret: SyncJoinSecret = enrollmentSecretStdin ? .enrollment(text) : .recovery(text)
            let sync = try context.sync()
            let url = url
            let machine = try awaitingResult { () async throws(KeychainError) in
                let machine = try await sync.join(databaseURL: url, secret: secret)
                try await sync.syncNow()
                return machine
            }
            if output.json { return try printJSON(["machine": machine.uuidString]) }
            printLine("Joined: this machine is \(machine); its synchronizable items are in sync.")
        }
    }
}

/// `latchkey sync now`.
struct SyncNowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "now",
        abstract: "Send this machine's changes and apply the other machines' now."
    )

    @OptionGroup var context: SyncContext
    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            let sync = try context.sync()
            let report = try awaitingResult { () async throws(KeychainError) in try await sync.syncNow() }
            if output.json { return try printJSON(report) }
            var line = "sent \(report.sent), applied \(report.applied), conflicts \(report.conflicts)"
            if report.refused > 0 { line += ", refused \(report.refused): \(report.lastRefusal ?? "")" }
            printLine(line)
        }
    }
}

/// `latchkey sync status`.
struct SyncStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show this machine's sync: keychain, queue, cursor, conflicts and the last error."
    )

    @OptionGroup var context: SyncContext
    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            let sync = try context.sync()
            let status = try awaitingResult { () async throws(KeychainError) in try await sync.status() }
            if output.json { return try printJSON(status) }
            guard status.enabled, let keychain = status.keychain, let machine = status.machine else {
                return printLine("sync: off (latchkey sync setup <URL>, or latchkey sync join <URL>)")
            }
            var lines = [
                "sync keychain: \(keychain)", "this machine: \(machine)", "database: \(status.database ?? "")",
                "key epoch: \(status.epoch ?? 0)", "queued: \(status.queued)", "sending: \(status.sending)",
                "cursor: \(status.cursor ?? "start")",
                "last sync: \(status.lastSync.map { ISO8601DateFormatter().string(from: $0) } ?? "never")",
            ]
            if let error = status.lastError { lines.append("last error: \(error)") }
            lines.append("conflicts: \(status.conflicts.count)")
            for conflict in status.conflicts {
                let side = conflict.lostLocally ? "this machine's edit lost" : "another machine's edit lost"
                lines.append("  row \(conflict.rowID): \(side) (winner \(conflict.winner), loser \(conflict.loser))")
            }
            printLine(lines.joined(separator: "\n"))
        }
    }
}

/// `latchkey sync machines`.
struct SyncMachinesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "machines",
        abstract: "List the machines of this sync keychain."
    )

    @OptionGroup var context: SyncContext
    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            let sync = try context.sync()
            let machines = try awaitingResult { () async throws(KeychainError) in try await sync.machines() }
            if output.json { return try printJSON(machines) }
            let formatter = ISO8601DateFormatter()
            for machine in machines {
                printLine(
                    "\(machine.id)  \(machine.state)  joined \(formatter.string(from: machine.joined))"
                        + (machine.isThisMachine ? "  (this machine)" : "")
                )
            }
        }
    }
}

/// `latchkey sync remove-machine <id>`.
struct SyncRemoveMachineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-machine",
        abstract: "Mark a machine of this sync keychain revoked (see docs/sync.md for what it keeps)."
    )

    @OptionGroup var context: SyncContext
    @Argument(help: "The machine's id (latchkey sync machines).") var id: String

    func run() throws {
        try runReportingErrors {
            guard let machine = UUID(uuidString: id) else {
                throw KeychainError(.param, "'\(id)' is not a machine id; see `latchkey sync machines`.")
            }
            let sync = try context.sync()
            try awaitingResult { () async throws(KeychainError) in try await sync.removeMachine(machine) }
            printLine("machine \(machine) revoked")
        }
    }
}

/// `latchkey sync leave`.
struct SyncLeaveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leave",
        abstract: "Stop syncing this keychain. Nothing is deleted, here or on any other machine."
    )

    @OptionGroup var context: SyncContext

    func run() throws {
        try runReportingErrors {
            let sync = try context.sync()
            let told = try awaitingResult { () async throws(KeychainError) in try await sync.leave() }
            printLine(
                told
                    ? "sync is off for this keychain; its items stay"
                    : "sync is off for this keychain; its items stay (the server could not be told)"
            )
        }
    }
}

/// `latchkey sync rotate-enrollment-secret`.
struct SyncRotateEnrollmentSecretCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-enrollment-secret",
        abstract: "Replace the enrollment secret (machines that joined with the old one stay)."
    )

    @OptionGroup var context: SyncContext
    @OptionGroup var output: OutputOptions
    @Option(help: "How many machines the new secret may enrol (default: unlimited).") var uses: Int?

    func run() throws {
        try runReportingErrors {
            let sync = try context.sync()
            let uses = uses
            let secret = try awaitingResult { () async throws(KeychainError) in
                try await sync.rotateEnrollmentSecret(uses: uses)
            }
            if output.json { return try printJSON(["enrollmentSecret": secret]) }
            printLine(secret)
        }
    }
}
