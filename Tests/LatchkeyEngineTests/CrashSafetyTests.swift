import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// Writers killed with SIGKILL at many moments of their work: the keychain must stay sound and keep every
/// acknowledged write. Each kill is triggered by an event of the child (its start, its k-th file-system
/// event, its n-th acknowledged line), never by a delay.
@Suite(.serialized)
struct CrashSafetyTests {
    /// Every stress item currently in the keychain, account → secret, failing on duplicate accounts.
    static func stressItems(in store: KeychainStore) throws -> [String: String] {
        let items: [FoundItem]
        do {
            items = try store.find(
                ItemQuery(.genericPassword, attributes: [.service: .string("stress")]),
                limit: .all,
                withData: true
            )
        } catch {
            // Not `catch KeychainError.Code.itemNotFound`: that pattern on a typed-throws call crashes the
            // Swift 6.3.1 SIL verifier ("Found outside of lifetime use").
            guard error.code == .itemNotFound else { throw error }
            items = []
        }
        var secrets: [String: String] = [:]
        for item in items {
            let account = item.attributes[.account]?.stringValue ?? "<no account>"
            #expect(secrets[account] == nil, "\(account) is stored twice")
            secrets[account] = item.data?.utf8String ?? "<no data>"
        }
        return secrets
    }

    @Test func killedWriterKeepsEveryAcknowledgedItemAndAnIntactFile() throws {
        let rounds = 20
        let keychain = TemporaryKeychain()
        try keychain.open().close()
        let environment = keychain.environment()
        var acknowledged: [String: String] = [:]
        var acknowledgedBeforeKill = 0
        var killedMidRun = 0

        for round in 0..<rounds {
            let prefix = "r\(round)"
            let events = try DirectoryEvents(directory: keychain.directory)
            let child = try BuiltExecutable.spawn(
                ["debug", "stress-add", "--prefix", prefix, "--count", "1000000"],
                environment: environment
            )
            // Every kill waits for an event of the child, never for time: its start (the kill lands in
            // process start-up), its k-th touch of the keychain's files (while it opens and unlocks the
            // keychain or runs its first adds), or its n-th acknowledged line (between or inside adds).
            let point: KillPoint =
                switch round % 4 {
                case 0: .spawn
                case 1: .fileEvents(Int.random(in: 1...40))
                default: .acknowledgedLines(Int.random(in: 1...150))
                }
            // Every line the child wrote was written after its add returned, so all of them count as
            // acknowledged, including those still in the pipe at the moment of the kill.
            let (trigger, seenBeforeKill, lines) = try point.kill(
                child,
                events: events,
                round: round,
                acknowledging: "adds"
            )
            let expectedLines = (0..<lines.count).map { "ok \(prefix)-\($0)" }
            try #require(lines == expectedLines, "round \(round): unexpected output \(lines.suffix(3))")
            acknowledgedBeforeKill += seenBeforeKill.count
            for index in 0..<lines.count { acknowledged["\(prefix)-\(index)"] = "secret-\(prefix)-\(index)" }

            let store = try keychain.open()
            let report = try store.verifyIntegrity()
            #expect(report.sqlite == ["ok"], "round \(round) (\(trigger)): \(report.sqlite)")
            #expect(
                report.undecryptable.isEmpty,
                "round \(round) (\(trigger)): \(report.undecryptable.count) undecryptable"
            )
            #expect(report.locked == 0)

            let stored = try Self.stressItems(in: store)
            #expect(report.verified == stored.count)
            let lost = acknowledged.filter { stored[$0.key] != $0.value }
            #expect(lost.isEmpty, "round \(round) (\(trigger)): lost or changed \(lost.keys.sorted().prefix(5))")
            // Adds run one after another, so at most the add in flight at the kill may have committed
            // without being acknowledged.
            let unacknowledged = stored.keys.filter { acknowledged[$0] == nil }
            let inFlight = "\(prefix)-\(lines.count)"
            #expect(
                unacknowledged.isEmpty || unacknowledged == [inFlight],
                "round \(round): unexpected items \(unacknowledged.sorted().prefix(5))"
            )
            #expect(stored[inFlight] == nil || stored[inFlight] == "secret-\(inFlight)")
            if stored[inFlight] != nil { acknowledged[inFlight] = "secret-\(inFlight)" }
            if !lines.isEmpty { killedMidRun += 1 }
            try store.close()
        }
        // At least every round triggered by acknowledged lines killed the child while it was adding.
        #expect(killedMidRun >= rounds / 2, "only \(killedMidRun) of \(rounds) kills landed during adds")
        #expect(acknowledgedBeforeKill > 0)

        // The CLI agrees that the file is sound after all those kills.
        let verify = try BuiltExecutable.spawn(["debug", "verify"], environment: environment).waitForExit(timeout: 60)
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        #expect(verify.stdout.contains("\"sqlite\":[\"ok\"]"), "\(verify.stdout)")
    }

    @Test func killedPassphraseChangeLeavesExactlyOneWorkingPassphrase() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("alice")],
            data: SecretData(string: "kept")
        )
        try store.close()
        func unlocks(_ passphrase: String) throws -> Bool {
            do {
                let opened = try KeychainStore.open(
                    path: keychain.path,
                    credentials: [.passphrase(SecretData(string: passphrase))],
                    options: keychain.options()
                )
                let item = try opened.findOne(
                    ItemQuery(.genericPassword, attributes: [.account: .string("alice")]),
                    withData: true
                )
                #expect(item.data == SecretData(string: "kept"))
                #expect(try opened.verifyIntegrity().isSound)
                try opened.close()
                return true
            } catch KeychainError.Code.authFailed {
                return false
            }
        }

        var current = "correct horse battery staple"
        func change(to next: String) throws -> (ChildProcess, DirectoryEvents) {
            let events = try DirectoryEvents(directory: keychain.directory)
            let child = try BuiltExecutable.spawn(
                ["set-keychain-password", "--kdf-cost", "testing", "--new-passphrase-stdin"],
                environment: keychain.environment(extra: ["LATCHKEY_PASSPHRASE": current]),
                input: next
            )
            return (child, events)
        }

        // A change left to finish shows how many file events a whole change makes; the killed rounds
        // spread their kill points over that range (from the spawn itself to the last event).
        let (calibration, calibrationEvents) = try change(to: "passphrase calibration")
        #expect(calibrationEvents.wait(for: .max, whileRunning: calibration.pid, timeout: 60) == .exited)
        let finishedCalibration = calibration.waitForExit(timeout: 60)
        try #require(finishedCalibration.status == 0, "\(finishedCalibration.stderr)")
        let eventsPerChange = calibrationEvents.count
        try #require(eventsPerChange > 0)
        current = "passphrase calibration"

        var killedRounds = 0
        // Sixteen kills from the spawn to the last event, then a round that is never killed, so at least one
        // change must go through.
        let killedRoundCount = 16
        for round in 0...killedRoundCount {
            let next = "passphrase round \(round)"
            let (child, events) = try change(to: next)
            let killed = round < killedRoundCount
            let touches = round * eventsPerChange / (killedRoundCount - 1)
            if killed, events.wait(for: touches, whileRunning: child.pid, timeout: 60) == .reached {
                child.kill(SIGKILL)
            }
            let finished = child.waitForExit(timeout: 60)
            let moment = killed ? "kill at file event \(touches) of about \(eventsPerChange)" : "not killed"
            #expect(
                finished.signal == SIGKILL || finished.status == 0,
                "round \(round) (\(moment)): \(finished.stderr)"
            )
            if finished.signal == SIGKILL { killedRounds += 1 }
            if !killed { #expect(finished.status == 0, "\(finished.stderr)") }

            let oldWorks = try unlocks(current)
            let newWorks = try unlocks(next)
            #expect(
                oldWorks != newWorks,
                "round \(round) (\(moment)): old passphrase works \(oldWorks), new works \(newWorks)"
            )
            if !killed { #expect(newWorks) }
            if newWorks { current = next }
        }
        // Round 0 kills at spawn, before any file event: at least that kill lands before the change ends.
        #expect(killedRounds >= 1)
    }
}
