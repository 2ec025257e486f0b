import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// Updaters killed with SIGKILL: every acknowledged update survives, whole (secret and attributes of one
/// version), and the file stays sound.
extension CrashSafetyTests {
    /// How many accounts the updater cycles through.
    static let updatedAccounts = 8

    /// One stored version of an updated item: the tag of its secret and the tag of its comment.
    struct StoredVersion: Equatable, CustomStringConvertible {
        var secretTag: String
        var commentTag: String
        var description: String { secretTag == commentTag ? secretTag : "secret \(secretTag), comment \(commentTag)" }
    }

    /// Every updated item, account → the version its secret and its comment hold.
    static func updatedItems(in store: KeychainStore) throws -> [String: StoredVersion] {
        let items = try store.find(
            ItemQuery(.genericPassword, attributes: [.service: .string("stress")]),
            limit: .all,
            withData: true
        )
        var versions: [String: StoredVersion] = [:]
        for item in items {
            let account = item.attributes[.account]?.stringValue ?? "<no account>"
            #expect(versions[account] == nil, "\(account) is stored twice")
            let secret = item.data?.utf8String ?? "<no data>"
            let comment = item.attributes[.comment]?.stringValue ?? "<no comment>"
            versions[account] = StoredVersion(
                secretTag: secret.hasPrefix("secret-") ? String(secret.dropFirst("secret-".count)) : secret,
                commentTag: comment.hasPrefix("comment-") ? String(comment.dropFirst("comment-".count)) : comment
            )
        }
        return versions
    }

    /// Lines after which the line-triggered rounds kill the updater, in round order (fixed, so that every run
    /// acknowledges at least their sum).
    static let updateKillLines = [1, 5, 12, 25, 40, 60, 85, 115, 150, 200, 260, 330]
    /// File events after which the event-triggered rounds kill the updater (while it opens, unlocks and
    /// makes its first updates).
    static let updateKillEvents = [2, 5, 9, 14, 22, 35]

    @Test func killedUpdaterKeepsEveryAcknowledgedUpdateWholeAndAnIntactFile() throws {
        let rounds = 24
        let accounts = Self.updatedAccounts
        let keychain = TemporaryKeychain()
        let seeding = try keychain.open()
        for index in 0..<accounts {
            try seeding.add(
                .genericPassword,
                attributes: [
                    .service: .string("stress"), .account: .string("u-\(index)"), .comment: .string("comment-seed"),
                ],
                data: SecretData(string: "secret-seed")
            )
        }
        try seeding.close()
        let environment = keychain.environment()
        // account → the tag of its last acknowledged update.
        var acknowledged = Dictionary(uniqueKeysWithValues: (0..<accounts).map { ("u-\($0)", "seed") })
        var acknowledgedUpdates = 0
        var acknowledgedBeforeKill = 0
        var unacknowledgedCommitted = 0
        var lost = 0
        var killedMidRun = 0

        for round in 0..<rounds {
            let prefix = "r\(round)"
            let events = try DirectoryEvents(directory: keychain.directory)
            let child = try BuiltExecutable.spawn(
                ["debug", "stress-update", "--prefix", prefix, "--accounts", "\(accounts)", "--count", "1000000"],
                environment: environment
            )
            // As for adds: every kill waits for an event of the child (its start, its k-th touch of the
            // keychain's files, its n-th acknowledged update), never for time.
            let point: KillPoint =
                switch round % 4 {
                case 0: .spawn
                case 1: .fileEvents(Self.updateKillEvents[round / 4])
                default: .acknowledgedLines(Self.updateKillLines[round / 4 * 2 + round % 4 - 2])
                }
            // Each line is written after its update returned: all of them are acknowledged, including those
            // still in the pipe at the moment of the kill.
            let (trigger, seenBeforeKill, lines) = try point.kill(
                child,
                events: events,
                round: round,
                acknowledging: "updates"
            )
            let expectedLines = (0..<lines.count).map { "ok u-\($0 % accounts) \(prefix)-\($0)" }
            try #require(lines == expectedLines, "round \(round): unexpected output \(lines.suffix(3))")
            for index in 0..<lines.count { acknowledged["u-\(index % accounts)"] = "\(prefix)-\(index)" }
            acknowledgedUpdates += lines.count
            acknowledgedBeforeKill += seenBeforeKill.count
            if !lines.isEmpty { killedMidRun += 1 }
            // Updates run one after another: only the one in flight at the kill may have committed unacknowledged.
            let inFlightAccount = "u-\(lines.count % accounts)"
            let inFlightTag = "\(prefix)-\(lines.count)"
            let inFlightVersion = StoredVersion(secretTag: inFlightTag, commentTag: inFlightTag)

            let store = try keychain.open()
            let report = try store.verifyIntegrity()
            #expect(report.sqlite == ["ok"], "round \(round) (\(trigger)): \(report.sqlite)")
            #expect(report.undecryptable.isEmpty, "round \(round) (\(trigger)): \(report.undecryptable.count) damaged")
            #expect(report.verified == accounts, "round \(round) (\(trigger)): \(report.verified) items")
            let stored = try Self.updatedItems(in: store)
            #expect(Set(stored.keys) == Set(acknowledged.keys), "round \(round): accounts \(stored.keys.sorted())")
            for (account, tag) in acknowledged.sorted(by: { $0.key < $1.key }) {
                let version = stored[account]
                #expect(
                    version?.secretTag == version?.commentTag,
                    "round \(round) (\(trigger)): \(account) mixes two updates: \(String(describing: version))"
                )
                if version == StoredVersion(secretTag: tag, commentTag: tag) { continue }
                if account == inFlightAccount, version == inFlightVersion {
                    acknowledged[account] = inFlightTag
                    unacknowledgedCommitted += 1
                    continue
                }
                lost += 1
                Issue.record(
                    "round \(round) (\(trigger)): \(account) holds \(String(describing: version)), acknowledged \(tag)"
                )
            }
            try store.close()
        }
        FileHandle.standardError.write(
            Data(
                ("CrashSafetyTests.killedUpdater: \(rounds) rounds, \(killedMidRun) killed while updating, "
                    + "\(acknowledgedUpdates) acknowledged updates (\(acknowledgedBeforeKill) read before the kill), "
                    + "\(lost) lost, \(unacknowledgedCommitted) in-flight updates committed\n").utf8
            )
        )
        #expect(lost == 0)
        // Every line-triggered round killed the updater after at least its number of acknowledged updates.
        #expect(killedMidRun >= rounds / 2, "only \(killedMidRun) of \(rounds) kills landed during updates")
        #expect(acknowledgedUpdates >= Self.updateKillLines.reduce(0, +))

        // The CLI agrees that the file is sound after all those kills.
        let verify = try BuiltExecutable.spawn(["debug", "verify"], environment: environment).waitForExit(timeout: 60)
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        #expect(verify.stdout.contains("\"sqlite\":[\"ok\"]"), "\(verify.stdout)")
    }
}
