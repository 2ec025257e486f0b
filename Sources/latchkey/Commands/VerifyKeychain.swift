import ArgumentParser
import Foundation
import Latchkey

/// `latchkey verify-keychain`: checks the file, every item this process can open and the row ledger.
struct VerifyKeychain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-keychain",
        abstract: "Check a keychain for damage, tampering and rows restored from an older copy.",
        discussion: """
            Runs SQLite's integrity check, authenticates every item the current lock state opens, and compares \
            every row with the row ledger (rollback detection). Prints a summary (or JSON with --json) and \
            exits 0 when everything is sound, 65 when anything is not. Items that do not match the ledger are \
            named by class and persistent reference, never by attribute values. --accept-current-state (needs \
            the keychain unlocked) seals the items as they are now, for example after restoring one on purpose; \
            items that do not match stay refused with errSecDecode (-26275) until then. When a latchkey agent \
            serves the keychain, the agent checks it with its own lock state (no credential is read here).
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @OptionGroup var output: OutputOptions

    @Flag(help: "Seal the items as they are now after checking them (needs the keychain unlocked).")
    var acceptCurrentState = false

    func run() throws {
        try runReportingErrors {
            let report: IntegrityReport
            // One call checks everything: its progress is not known, so the bar shows a moving block and the time.
            var progress: ProgressBar?
            defer { progress?.finish() }
            let service = try KeychainContext.agent(serving: keychain.path) ?? keychain.open()
            progress = ProgressBar.start("verify-keychain", enabled: !output.json)
            progress?.update("checking every item", fraction: nil)
            report = try service.verifyIntegrity(acceptingCurrentState: acceptCurrentState)
            progress?.finish()
            if acceptCurrentState {
                FileHandle.standardError.write(Data("latchkey: the items as they are now are sealed\n".utf8))
            }
            if output.json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                FileHandle.standardOutput.write(try encoder.encode(report) + Data("\n".utf8))
            } else {
                FileHandle.standardOutput.write(Data(Self.summary(report).utf8))
            }
            if !report.isSound && !acceptCurrentState { throw ExitCode(ExitStatus.damagedSkipped) }
        }
    }

    static func summary(_ report: IntegrityReport) -> String {
        func hex(_ data: Data) -> String { data.lowercaseHex }
        var lines = ["sqlite: \(report.sqlite.joined(separator: "; "))"]
        lines.append("items verified: \(report.verified), locked: \(report.locked)")
        for reference in report.undecryptable { lines.append("damaged: \(hex(reference))") }
        if let ledger = report.ledger, ledger.enabled {
            lines.append("row ledger: generation \(ledger.generation), \(ledger.rows) rows")
            for reference in ledger.mismatched { lines.append("not as last stored: \(hex(reference))") }
            if ledger.rowsMissing { lines.append("rows removed outside Latchkey") }
        } else {
            lines.append("row ledger: none (format 1 keychain; added at its next writable unlock)")
        }
        lines.append(report.isSound ? "sound" : "NOT sound")
        return lines.joined(separator: "\n") + "\n"
    }
}
