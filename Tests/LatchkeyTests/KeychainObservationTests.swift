import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Collects the first `count` changes of a sequence, or fails after `timeout`.
func collectChanges(
    _ changes: KeychainChanges,
    count: Int,
    timeout: Duration = .seconds(10)
) async throws -> [KeychainChange] {
    try await withThrowingTaskGroup(of: [KeychainChange]?.self) { group in
        group.addTask {
            var collected: [KeychainChange] = []
            for try await change in changes {
                collected.append(change)
                if collected.count == count { break }
            }
            return collected
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            Issue.record("timed out waiting for \(count) change(s)")
            return []
        }
        return result
    }
}

struct KeychainObservationTests {
    @Test(.timeLimit(.minutes(1))) func keyObserverSeesAddUpdateRemove() async throws {
        let keychain = try TestKeychain.inMemory().keychain()
        let changes = await keychain.changes(forKey: "token")
        let collector = Task { try await collectChanges(changes, count: 3) }
        try await keychain.set("one", forKey: "token")
        try await Task.sleep(for: .milliseconds(50))
        try await keychain.set("other key", forKey: "unrelated")
        try await keychain.set("two", forKey: "token")
        try await Task.sleep(for: .milliseconds(50))
        try await keychain.removeValue(forKey: "token")
        let seen = try await collector.value
        #expect(seen.map(\.kind) == [.added, .updated, .removed])
        #expect(seen.allSatisfy { $0.key == "token" })
        #expect(seen.first?.metadata?.accessibility == .afterFirstUnlock)
        #expect(seen.last?.metadata == nil)
    }

    @Test(.timeLimit(.minutes(1))) func serviceObserverSeesEveryKeyOfItsServiceOnly() async throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain(service: "watched")
        let changes = await keychain.changes()
        let collector = Task { try await collectChanges(changes, count: 2) }
        try await test.keychain(service: "elsewhere").set("x", forKey: "a")
        try await keychain.set("1", forKey: "a")
        try await Task.sleep(for: .milliseconds(50))
        try await keychain.set("2", forKey: "b")
        let seen = try await collector.value
        #expect(seen.map(\.key) == ["a", "b"])
        #expect(seen.map(\.kind) == [.added, .added])
    }

    @Test(.timeLimit(.minutes(1))) func changesThroughASecondStoreOnTheSameFileAreSeen() async throws {
        let test = try TestKeychain.inMemory()
        let other = try test.openAnotherStore()
        let changes = await test.keychain().changes(forKey: "k")
        let collector = Task { try await collectChanges(changes, count: 1) }
        // A write through the core on another store instance: only the file watcher can see it.
        try other.add(
            .genericPassword,
            attributes: [.service: .string("com.example.tests"), .account: .string("k")],
            data: SecretData(string: "v")
        )
        let seen = try await collector.value
        #expect(seen.map(\.kind) == [.added])
    }

    @Test(.timeLimit(.minutes(1))) func changeMadeByAnotherProcessIsSeen() async throws {
        let test = try TestKeychain()
        let keychain = test.keychain(service: "cli-service")
        let changes = await keychain.changes()
        let collector = Task { try await collectChanges(changes, count: 1) }
        let output = try BuiltExecutable.run(
            ["add-generic-password", "-s", "cli-service", "-a", "from-cli", "-w", "written-by-cli"],
            environment: test.environment()
        )
        #expect(output.status == 0, "\(output.stderr)")
        let seen = try await collector.value
        #expect(seen.map(\.key) == ["from-cli"])
        #expect(seen.map(\.kind) == [.added])
        #expect(try await keychain.string(forKey: "from-cli") == "written-by-cli")
    }

    /// The file watcher sees another process's commit through inotify, long before its safety tick.
    @Test(.timeLimit(.minutes(1))) func watcherNoticesAnotherProcessWithoutPolling() async throws {
        let test = try TestKeychain()
        let (events, continuation) = AsyncStream.makeStream(of: Void.self)
        let watcher = FileChangeWatcher(path: test.path, tick: .seconds(3600)) { continuation.yield() }
        defer { watcher.stop() }
        let output = try BuiltExecutable.run(
            ["add-generic-password", "-s", "svc", "-a", "acct", "-w", "pw"],
            environment: test.environment()
        )
        #expect(output.status == 0, "\(output.stderr)")
        let exited = ContinuousClock.now
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() != nil)
        // The write happened before the process exited; the event is already there or arrives in ms.
        #expect(ContinuousClock.now - exited < .seconds(1))
    }

    @Test(.timeLimit(.minutes(1))) func changesWhileLockedAreReportedAfterUnlock() async throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain().accessibility(.whenUnlocked)
        try await keychain.set("v1", forKey: "k")
        let changes = await keychain.changes(forKey: "k")
        let collector = Task { try await collectChanges(changes, count: 1) }
        test.lock()
        // Another "process" (store) that is unlocked rewrites the item while this one is locked.
        let other = try test.openAnotherStore()
        try await keychain.store(other).set("v2", forKey: "k")
        try await Task.sleep(for: .milliseconds(200))
        try test.unlock()
        let seen = try await collector.value
        #expect(seen.map(\.kind) == [.updated])
    }

    @Test(.timeLimit(.minutes(1))) func stoppingIterationStopsTheWatcher() async throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain()
        let changes = await keychain.changes()
        #expect(ChangeMonitor.isWatching(test.path))
        let consumer = Task {
            for try await _ in changes {}
        }
        try await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        _ = try? await consumer.value
        var waited = 0
        while ChangeMonitor.isWatching(test.path), waited < 100 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        #expect(!ChangeMonitor.isWatching(test.path))
    }
}
