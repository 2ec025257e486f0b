import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// Compound writes are the core's and all or nothing: `-U` is the core's upsert on the exact item an add
/// would collide with, and racing processes never see a half-done upsert or lose each other's changes.
struct CompoundOperationTests {
    @Test func upsertUpdatesOnlyTheItemAnAddWouldCollideWith() throws {
        let keychain = try CLIRunner.keychain()
        let inA = CLIRunner.environment(keychain, extra: ["LATCHKEY_ACCESS_GROUPS": "A"])
        let inBThenA = CLIRunner.environment(keychain, extra: ["LATCHKEY_ACCESS_GROUPS": "B,A"])
        let one = try CLIRunner.latchkey(["add-generic-password", "-s", "s", "-a", "a", "-w", "one"], environment: inA)
        #expect(one.status == 0, "\(one.stderr)")
        let two = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "s", "-a", "a", "-w", "two"],
            environment: inBThenA
        )
        #expect(two.status == 0, "the add lands in B, the first group: \(two.stderr)")
        let three = try CLIRunner.latchkey(
            ["add-generic-password", "-U", "-s", "s", "-a", "a", "-w", "three"],
            environment: inBThenA
        )
        #expect(three.status == 0, "\(three.stderr)")

        let store = try keychain.open(accessGroups: ["A", "B"])
        let items = try store.find(
            ItemQuery(.genericPassword, attributes: [.service: .string("s")]),
            limit: .all,
            withData: true
        )
        let byGroup = Dictionary(
            uniqueKeysWithValues: items.map { ($0.attributes[.accessGroup]?.stringValue, $0.data) }
        )
        #expect(items.count == 2)
        #expect(byGroup["A"] == SecretData(string: "one"), "A's item is not the one an add in B collides with")
        #expect(byGroup["B"] == SecretData(string: "three"))
        let fromA = try CLIRunner.latchkey(["find-generic-password", "-s", "s", "-a", "a", "-w"], environment: inA)
        #expect(fromA.stdout == "one\n")
    }

    @Test func upsertRacingDeleteNeverReportsNotFound() throws {
        let keychain = try CLIRunner.keychain()
        var environment = CLIRunner.environment(keychain)
        environment["LK"] = BuiltExecutable.latchkey
        let seed = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "race", "-a", "x", "-w", "0"],
            environment: environment
        )
        #expect(seed.status == 0, "\(seed.stderr)")
        let rounds = 25
        let results = try ProcessRace.run(4, environment: environment) { worker in
            worker % 2 == 0
                ? """
                i=0
                while [ $i -lt \(rounds) ]; do
                  "$LK" add-generic-password -U -s race -a x -w "w\(worker)-$i" || { echo "upsert failed with $?" >&2; exit 1; }
                  i=$((i+1))
                done
                """
                : """
                i=0
                while [ $i -lt \(rounds) ]; do
                  "$LK" delete-generic-password -s race -a x >/dev/null 2>&1
                  status=$?
                  [ $status -eq 0 ] || [ $status -eq 44 ] || { echo "delete failed with $status" >&2; exit 1; }
                  i=$((i+1))
                done
                """
        }
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let store = try keychain.open()
        let left = try store.findAll(ItemQuery(.genericPassword, attributes: [.service: .string("race")]))
        #expect(left.count <= 1, "never a duplicate")
    }

    @Test func racingWritersOfDifferentAttributesNeverOverwriteEachOther() throws {
        let keychain = try CLIRunner.keychain()
        var environment = CLIRunner.environment(keychain)
        environment["LK"] = BuiltExecutable.latchkey
        let seed = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "merge", "-a", "x", "-w", "0"],
            environment: environment
        )
        #expect(seed.status == 0, "\(seed.stderr)")
        let options = ["-l", "-j", "-D", "-G"]
        let rounds = 20
        let results = try ProcessRace.run(4, environment: environment) { worker in
            """
            i=1
            while [ $i -le \(rounds) ]; do
              "$LK" add-generic-password -U -s merge -a x \(options[worker]) "w\(worker)-$i" -w "secret" || exit 1
              i=$((i+1))
            done
            """
        }
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let store = try keychain.open()
        let item = try store.findOne(ItemQuery(.genericPassword, attributes: [.service: .string("merge")]))
        #expect(item.attributes[.label]?.stringValue == "w0-\(rounds)")
        #expect(item.attributes[.comment]?.stringValue == "w1-\(rounds)")
        #expect(item.attributes[.itemDescription]?.stringValue == "w2-\(rounds)")
        #expect(item.attributes[.generic]?.dataValue == Data("w3-\(rounds)".utf8))
    }

    @Test func aBatchIsAllOrNothing() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.service: .string("b"), .account: .string("taken")], data: nil)
        #expect(throws: KeychainError.self) {
            _ = try store.batch([
                .add(NewItem(.genericPassword, attributes: [.service: .string("b"), .account: .string("new")])),
                .delete(DeleteRequest(ItemQuery(.genericPassword, attributes: [.account: .string("taken")]))),
                .add(NewItem(.genericPassword, attributes: [.service: .string("b"), .account: .string("new")])),
            ])
        }
        #expect(try store.exists(ItemQuery(.genericPassword, attributes: [.account: .string("taken")])))
        #expect(try !store.exists(ItemQuery(.genericPassword, attributes: [.account: .string("new")])))
        let outcomes = try store.batch([
            .delete(DeleteRequest(ItemQuery(.genericPassword, attributes: [.account: .string("absent")]))),
            .upsert(NewItem(.genericPassword, attributes: [.service: .string("b"), .account: .string("taken")])),
        ])
        #expect(outcomes.first == .count(0), "a delete that matches nothing counts 0 inside a batch")
    }

    @Test func aKeyPairIsAddedTogetherOrNotAtAll() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let label = Data(repeating: 7, count: 20)
        let publicKey = NewItem(
            .key,
            attributes: [
                .applicationLabel: .data(label), .keyClass: .number(0), .applicationTag: .data(Data("t".utf8)),
            ],
            data: SecretData(Data([1, 2, 3]))
        )
        let privateKey = NewItem(
            .key,
            attributes: [
                .applicationLabel: .data(label), .keyClass: .number(1), .applicationTag: .data(Data("t".utf8)),
            ],
            data: SecretData(Data([4, 5, 6]))
        )
        try store.add(privateKey.itemClass, attributes: privateKey.attributes, data: privateKey.data)
        #expect(throws: KeychainError.self) {
            _ = try store.perform(.addAll([publicKey, privateKey], tolerateExisting: false))
        }
        let keys = try store.findAll(ItemQuery(.key, attributes: [.applicationLabel: .data(label)]))
        #expect(keys.count == 1, "the public key of a failed pair add is rolled back")
        let added = try store.perform(.addAll([publicKey, privateKey], tolerateExisting: true)).items()
        #expect(added.count == 1, "tolerating the existing part adds only the missing one")
    }

    @Test func updateOfAProtectedItemNeedsConfirmationInTheSameTransaction() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let control = AccessControlRecord(
            protection: Accessibility.whenUnlocked.rawValue,
            flags: AccessControlRecord.userPresence
        )
        try store.add(
            .genericPassword,
            attributes: [.service: .string("p"), .accessControl: .data(control.serialized)],
            data: SecretData(string: "old")
        )
        let query = ItemQuery(.genericPassword, attributes: [.service: .string("p")])
        let changes = ItemChanges(data: SecretData(string: "new"))
        #expect(throws: KeychainError.self) { try store.update(query, with: changes, authentication: .ask) }
        do {
            try store.update(query, with: changes, authentication: .ask)
        } catch {
            #expect(error.code == .interactionRequired)
        }
        #expect(
            try store.find(query, withData: true, authentication: .confirmed).first?.data == SecretData(string: "old")
        )
        try store.update(query, with: changes, authentication: .confirmed)
        #expect(
            try store.find(query, withData: true, authentication: .confirmed).first?.data == SecretData(string: "new")
        )
        #expect(throws: KeychainError.self) { try store.find(query, withData: true, authentication: .fail) }
        #expect(throws: KeychainError.self) { try store.find(query, withData: true, authentication: .skip) }
        #expect(try store.find(query, withData: false).count == 1, "attributes need no authentication")
    }
}

/// Runs shell scripts in several real processes at once and collects their results.
enum ProcessRace {
    static func run(
        _ count: Int,
        environment: [String: String],
        script: @escaping @Sendable (Int) -> String
    ) throws -> [CLIRunner.Result] {
        let results = Collected(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { worker in
            let result = try? CLIRunner.run("/bin/sh", ["-c", script(worker)], environment: environment, timeout: 600)
            results.set(worker, result)
        }
        return try results.all.map { try #require($0) }
    }

    final class Collected: @unchecked Sendable {
        // SAFETY: every access to `values` holds `lock`.
        private let lock = NSLock()
        private var values: [CLIRunner.Result?]
        init(count: Int) { values = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ value: CLIRunner.Result?) { lock.withLock { values[index] = value } }
        var all: [CLIRunner.Result?] { lock.withLock { values } }
    }
}
