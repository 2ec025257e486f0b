import Foundation
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// Collects the first `count` changes of a sequence. Each test that calls it has a time limit, which
/// fails the test if the changes never come.
func collectChanges(_ changes: KeychainChanges, count: Int) async throws -> [KeychainChange] {
    var collected: [KeychainChange] = []
    for try await change in changes {
        collected.append(change)
        if collected.count == count { break }
    }
    if collected.count < count { Issue.record("the sequence ended after \(collected.count) of \(count) change(s)") }
    return collected
}

struct KeychainObservationTests {
    /// Each write waits for the previous change to be reported (changes are net: writes between two
    /// looks would merge into one change).
    @Test(.timeLimit(.minutes(5))) func keyObserverSeesAddUpdateRemove() async throws {
        let keychain = try TestKeychain.inMemory().keychain()
        let changes = await keychain.changes(forKey: "token")
        var iterator = changes.makeAsyncIterator()
        var seen: [KeychainChange] = []
        try await keychain.set("one", forKey: "token")
        seen.append(try #require(try await iterator.next()))
        try await keychain.set("other key", forKey: "unrelated")
        try await keychain.set("two", forKey: "token")
        seen.append(try #require(try await iterator.next()))
        try await keychain.removeValue(forKey: "token")
        seen.append(try #require(try await iterator.next()))
        #expect(seen.map(\.kind) == [.added, .updated, .removed])
        #expect(seen.allSatisfy { $0.key == "token" })
        #expect(seen.first?.metadata?.accessibility == .afterFirstUnlock)
        #expect(seen.last?.metadata == nil)
    }

    @Test(.timeLimit(.minutes(5))) func serviceObserverSeesEveryKeyOfItsServiceOnly() async throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain(service: "watched")
        let changes = await keychain.changes()
        var iterator = changes.makeAsyncIterator()
        var seen: [KeychainChange] = []
        // Written first: had it been reported, it would be the first change seen.
        try await test.keychain(service: "elsewhere").set("x", forKey: "a")
        try await keychain.set("1", forKey: "a")
        seen.append(try #require(try await iterator.next()))
        try await keychain.set("2", forKey: "b")
        seen.append(try #require(try await iterator.next()))
        #expect(seen.map(\.key) == ["a", "b"])
        #expect(seen.map(\.kind) == [.added, .added])
    }

    @Test(.timeLimit(.minutes(5))) func changesThroughASecondStoreOnTheSameFileAreSeen() async throws {
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

    @Test(.timeLimit(.minutes(5))) func changeMadeByAnotherProcessIsSeen() async throws {
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

    /// The file watcher sees another process's commit through inotify: its tick is manual, so no timer
    /// can have fired the callback.
    @Test(.timeLimit(.minutes(5))) func watcherNoticesAnotherProcessWithoutPolling() async throws {
        let test = try TestKeychain()
        let (events, continuation) = AsyncStream.makeStream(of: Void.self)
        let watcher = FileChangeWatcher(path: test.path, tick: .manual) { continuation.yield() }
        defer { watcher.stop() }
        let output = try BuiltExecutable.run(
            ["add-generic-password", "-s", "svc", "-a", "acct", "-w", "pw"],
            environment: test.environment()
        )
        #expect(output.status == 0, "\(output.stderr)")
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() != nil)
    }

    /// The safety tick (for file systems without inotify) runs the callback without any file event; a
    /// manual tick runs it on demand, and a stopped watcher ignores it.
    @Test(.timeLimit(.minutes(5))) func manualTickFiresTheCallbackOnDemandOnly() async throws {
        let test = try TestKeychain()
        let (events, continuation) = AsyncStream.makeStream(of: Void.self)
        // A file nobody writes, so the tick is the only source of callbacks.
        let watcher = FileChangeWatcher(path: test.directory + "/unwritten.keychain-db", tick: .manual) {
            continuation.yield()
        }
        var iterator = events.makeAsyncIterator()
        try await test.keychain().set("v", forKey: "k")
        watcher.tickNow()
        #expect(await iterator.next() != nil)
        watcher.tickNow()
        #expect(await iterator.next() != nil)
        watcher.stop()
        watcher.tickNow()  // must not write to the closed pipe
        watcher.stop()
    }

    @Test(.timeLimit(.minutes(5))) func changesWhileLockedAreReportedAfterUnlock() async throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain().accessibility(.whenUnlocked)
        try await keychain.set("v1", forKey: "k")
        let changes = await keychain.changes(forKey: "k")
        let collector = Task { try await collectChanges(changes, count: 1) }
        var refreshes = ChangeMonitor.refreshes(of: test.path).makeAsyncIterator()
        test.lock()
        // Another "process" (store) that is unlocked rewrites the item while this one is locked.
        let other = try test.openAnotherStore()
        try await keychain.store(other).set("v2", forKey: "k")
        // The subscription noticed the write and could not read it: nothing is reported while locked.
        while let refresh = await refreshes.next(), refresh != .locked {
            #expect(refresh == .unchanged, "only the lock itself may be looked at before the locked read")
        }
        try test.unlock()
        let seen = try await collector.value
        #expect(seen.map(\.kind) == [.updated])
    }

    @Test(.timeLimit(.minutes(5))) func stoppingIterationStopsTheWatcher() async throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain()
        let changes = await keychain.changes()
        #expect(ChangeMonitor.isWatching(test.path))
        // The consumer reports its first change, so it is iterating when it is cancelled.
        let (received, receivedContinuation) = AsyncStream.makeStream(of: KeychainChange.self)
        let consumer = Task {
            for try await change in changes { receivedContinuation.yield(change) }
        }
        try await keychain.set("v", forKey: "k")
        var iterator = received.makeAsyncIterator()
        #expect(await iterator.next()?.kind == .added)
        consumer.cancel()
        // Cancelling the iterating task terminates the stream, which removes the subscription at once.
        await #expect(throws: Never.self) { try await consumer.value }
        #expect(!ChangeMonitor.isWatching(test.path))
    }
}
