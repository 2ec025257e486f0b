import ArgumentParser
import Foundation
import Latchkey

/// Hidden commands used by the test suite's multi-process and crash tests.
struct Debug: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "Diagnostics and test support.",
        shouldDisplay: false,
        subcommands: [StressAdd.self, StressUpdate.self, Verify.self, ListAccounts.self, AgentLoad.self]
    )

    /// Adds `count` generic passwords (service `stress`, account `<prefix>-<n>`, secret `secret-<prefix>-<n>`),
    /// printing `ok <account>` and flushing after each acknowledged add.
    struct StressAdd: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stress-add")
        @OptionGroup var keychain: KeychainOptions
        @Option var prefix: String
        @Option var count: Int = 500
        @Option var start: Int = 0

        func run() throws {
            try runReportingErrors {
                let store = try keychain.open(ifMissing: .createDefault)
                for index in start..<(start + count) {
                    let account = "\(prefix)-\(index)"
                    try store.add(
                        .genericPassword,
                        attributes: [.service: .string("stress"), .account: .string(account)],
                        data: SecretData(string: "secret-\(account)")
                    )
                    FileHandle.standardOutput.write(Data("ok \(account)\n".utf8))
                }
            }
        }
    }

    /// Updates existing generic passwords (service `stress`, accounts `u-0` … `u-<accounts-1>`) in turn: update
    /// `n` sets account `u-<n % accounts>`'s secret to `secret-<prefix>-<n>` and its comment to
    /// `comment-<prefix>-<n>` in one transaction, then prints `ok u-<k> <prefix>-<n>` and flushes.
    struct StressUpdate: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stress-update")
        @OptionGroup var keychain: KeychainOptions
        @Option var prefix: String
        @Option var accounts: Int = 8
        @Option var count: Int = 500

        func run() throws {
            try runReportingErrors {
                let store = try keychain.open(ifMissing: .createDefault)
                for index in 0..<count {
                    let account = "u-\(index % max(accounts, 1))"
                    let tag = "\(prefix)-\(index)"
                    let query = ItemQuery(
                        .genericPassword,
                        attributes: [.service: .string("stress"), .account: .string(account)]
                    )
                    try store.update(
                        query,
                        with: ItemChanges(
                            attributes: [.comment: .string("comment-\(tag)")],
                            data: SecretData(string: "secret-\(tag)")
                        )
                    )
                    FileHandle.standardOutput.write(Data("ok \(account) \(tag)\n".utf8))
                }
            }
        }
    }

    /// Prints an integrity report as JSON; exits 1 when the keychain is not sound.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "verify")
        @OptionGroup var keychain: KeychainOptions

        func run() throws {
            try runReportingErrors {
                let store = try keychain.open()
                let report = try store.verifyIntegrity(acceptingCurrentState: false)
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                let json = try encoder.encode(report)
                FileHandle.standardOutput.write(json + Data("\n".utf8))
                if !report.isSound { throw ExitCode(1) }
            }
        }
    }

    /// Prints `<account> <secret>` for every generic password of a service, one per line.
    struct ListAccounts: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list-accounts")
        @OptionGroup var keychain: KeychainOptions
        @Option var service: String = "stress"

        func run() throws {
            try runReportingErrors {
                let store = try keychain.open()
                let items: [FoundItem]
                do {
                    items = try store.find(
                        ItemQuery(.genericPassword, attributes: [.service: .string(service)]),
                        limit: .all,
                        withData: true
                    )
                } catch KeychainError.Code.itemNotFound {
                    items = []
                }
                var out = ""
                for item in items {
                    out += "\(item.attributes[.account]?.stringValue ?? "") \(item.data?.utf8String ?? "")\n"
                }
                FileHandle.standardOutput.write(Data(out.utf8))
            }
        }
    }
}
