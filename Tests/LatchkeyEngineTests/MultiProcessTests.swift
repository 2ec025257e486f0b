import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// Several real `latchkey` processes writing one keychain file at the same time.
@Suite(.serialized)
struct MultiProcessTests {
    /// Words in a child's standard error that would mean SQLite's lock leaked through as a failure.
    static let lockWords = ["busy", "locked", "sqlite_busy", "database is locked"]

    @Test func concurrentProcessesEachAddingFiveHundredItemsLoseAndDuplicateNothing() throws {
        let processCount = 4
        let itemsPerProcess = 500
        let keychain = TemporaryKeychain()
        try keychain.open().close()
        let environment = keychain.environment()

        let children = try (0..<processCount).map { index in
            try BuiltExecutable.spawn(
                ["debug", "stress-add", "--prefix", "p\(index)", "--count", "\(itemsPerProcess)"],
                environment: environment
            )
        }
        let results = children.map { $0.waitForExit(timeout: 240) }

        for (index, result) in results.enumerated() {
            #expect(!result.timedOut, "process p\(index) did not finish")
            #expect(result.signal == nil, "process p\(index) was killed by signal \(result.signal ?? 0)")
            #expect(result.status == 0, "process p\(index) exited \(result.status): \(result.stderr)")
            let stderr = result.stderr.lowercased()
            for word in Self.lockWords {
                #expect(!stderr.contains(word), "process p\(index) reported '\(word)': \(result.stderr)")
            }
            let expected = (0..<itemsPerProcess).map { "ok p\(index)-\($0)" }
            #expect(result.stdoutLines == expected, "process p\(index) did not acknowledge every add in order")
        }
        let store = try keychain.open()
        let items = try store.find(
            ItemQuery(.genericPassword, attributes: [.service: .string("stress")]),
            limit: .all,
            withData: true
        )
        // Items come back in insertion order. Processes that ran one after the other would switch prefix
        // exactly `processCount - 1` times; more switches prove the writers really interleaved.
        let prefixes = items.map { $0.attributes[.account]?.stringValue?.split(separator: "-").first ?? "" }
        let switches = zip(prefixes, prefixes.dropFirst()).filter { $0 != $1 }.count
        #expect(switches >= processCount, "the processes did not overlap (\(switches) prefix switches)")
        var secrets: [String: [String]] = [:]
        for item in items {
            let account = item.attributes[.account]?.stringValue ?? "<no account>"
            secrets[account, default: []].append(item.data?.utf8String ?? "<no data>")
        }
        #expect(items.count == processCount * itemsPerProcess)
        var missing: [String] = []
        var wrong: [String] = []
        for index in 0..<processCount {
            for number in 0..<itemsPerProcess {
                let account = "p\(index)-\(number)"
                switch secrets[account] {
                case nil: missing.append(account)
                case let found? where found == ["secret-\(account)"]: break
                case _?: wrong.append(account)
                }
            }
        }
        #expect(missing.isEmpty, "\(missing.count) items missing, e.g. \(missing.prefix(5))")
        #expect(wrong.isEmpty, "\(wrong.count) items duplicated or with a wrong secret, e.g. \(wrong.prefix(5))")

        let report = try store.verifyIntegrity()
        #expect(report.isSound, "\(report)")
        #expect(report.verified == processCount * itemsPerProcess)
        #expect(try store.changeCounter() >= Int64(processCount * itemsPerProcess))
    }

    @Test func interleavedAddFindAndUpdateFromSeveralProcessesStayConsistent() throws {
        let workers = 4
        let rounds = 5
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(
            .genericPassword,
            attributes: [.service: .string("shared"), .account: .string("counter")],
            data: SecretData(string: "initial")
        )
        let environment = keychain.environment()

        // Each worker is a thread driving its own sequence of CLI processes; the workers run side by side.
        let failures = Failures()
        let group = DispatchGroup()
        for worker in 0..<workers {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    try Self.drive(worker: worker, rounds: rounds, environment: environment, failures: failures)
                } catch {
                    failures.record("worker \(worker): \(error)")
                }
            }.start()
        }
        let finished = group.wait(timeout: .now() + 240)
        #expect(finished == .success, "workers did not finish in time")
        #expect(failures.all.isEmpty, "\(failures.all.joined(separator: "\n"))")

        let items = try store.find(
            ItemQuery(.genericPassword, attributes: [.service: .string("mixed")]),
            limit: .all,
            withData: true
        )
        let byAccount = Dictionary(grouping: items) { $0.attributes[.account]?.stringValue ?? "" }
        #expect(items.count == workers * rounds)
        for worker in 0..<workers {
            for round in 0..<rounds {
                let account = "w\(worker)-\(round)"
                #expect(byAccount[account]?.count == 1, "\(account) should exist exactly once")
                #expect(byAccount[account]?.first?.data == SecretData(string: "updated-\(account)"))
            }
        }
        let shared = try store.findOne(
            ItemQuery(.genericPassword, attributes: [.service: .string("shared"), .account: .string("counter")]),
            withData: true
        )
        let lastWrites = (0..<workers).map { SecretData(string: "w\($0)-\(rounds - 1)") }
        #expect(lastWrites.contains { $0 == shared.data }, "the shared item should hold some worker's last write")
        #expect(try store.verifyIntegrity().isSound)
    }

    /// One worker's rounds: add its own item, read it back, update it, read the update, and overwrite
    /// the shared item with `-U`.
    private static func drive(worker: Int, rounds: Int, environment: [String: String], failures: Failures) throws {
        func run(_ arguments: [String], expect status: Int32 = 0) throws -> String {
            let result = try BuiltExecutable.spawn(arguments, environment: environment).waitForExit(timeout: 60)
            if result.timedOut || result.status != status || result.signal != nil {
                failures.record(
                    "w\(worker) \(arguments.prefix(1)) exited \(result.status) signal \(result.signal ?? 0) "
                        + "timedOut \(result.timedOut): \(result.stderr)"
                )
            }
            let stderr = result.stderr.lowercased()
            if lockWords.contains(where: stderr.contains) {
                failures.record("w\(worker) saw a lock error: \(result.stderr)")
            }
            return result.stdout
        }
        for round in 0..<rounds {
            let account = "w\(worker)-\(round)"
            _ = try run(["add-generic-password", "-s", "mixed", "-a", account, "-w", "first-\(account)"])
            let first = try run(["find-generic-password", "-s", "mixed", "-a", account, "-w"])
            if first != "first-\(account)\n" { failures.record("\(account): read back \(first.debugDescription)") }
            _ = try run(["add-generic-password", "-U", "-s", "mixed", "-a", account, "-w", "updated-\(account)"])
            _ = try run(["add-generic-password", "-U", "-s", "shared", "-a", "counter", "-w", account])
            let second = try run(["find-generic-password", "-s", "mixed", "-a", account, "-w"])
            if second != "updated-\(account)\n" { failures.record("\(account): read back \(second.debugDescription)") }
            let shared = try run(["find-generic-password", "-s", "shared", "-a", "counter", "-w"])
            if !shared.hasPrefix("w") { failures.record("shared item read back \(shared.debugDescription)") }
        }
    }
}

/// Failure messages collected from worker threads.
private final class Failures: @unchecked Sendable {
    // SAFETY: `messages` is only touched with `lock` held.
    private let lock = NSLock()
    private var messages: [String] = []

    func record(_ message: String) {
        lock.lock()
        messages.append(message)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return messages
    }
}
