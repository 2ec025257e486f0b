import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// `waitUntilAvailable()`: each test unlocks only once its waiters are registered with the store's
/// lock-state signal (`LockStateSignal.waitForObservers(atLeast:)`), so a waiter is proved to be
/// resumed by the unlock itself, with no sleep.
struct KeychainReadinessTests {
    @Test(.timeLimit(.minutes(5))) func returnsAtOnceWhenAlreadyUnlocked() async throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try await keychain.waitUntilAvailable()
        #expect(try await keychain.isAvailable())
    }

    @Test(.timeLimit(.minutes(5))) func resumesWhenAnotherTaskUnlocks() async throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain().accessibility(.whenUnlocked)
        try await keychain.set("v", forKey: "token")
        test.lock()
        #expect(try await !keychain.isAvailable())

        let waiter = Task {
            try await keychain.waitUntilAvailable()
            return try await keychain.string(forKey: "token")
        }
        await test.store.keys.lockStates.waitForObservers(atLeast: 1)
        let unlocker = Task.detached { try test.unlock() }
        try await unlocker.value
        #expect(try await waiter.value == "v")
    }

    @Test(.timeLimit(.minutes(5))) func afterFirstUnlockItemsWaitForTheFirstUnlockOnly() async throws {
        let test = try TestKeychain.inMemory(startsLocked: true)
        let background = test.keychain().accessibility(.afterFirstUnlock)
        let foreground = test.keychain().accessibility(.whenUnlocked)
        #expect(try await !background.isAvailable())

        let waiting = Task { try await background.waitUntilAvailable() }
        await test.store.keys.lockStates.waitForObservers(atLeast: 1)
        try test.unlock()
        try await waiting.value

        test.lock()
        // Locked again: afterFirstUnlock items stay readable, whenUnlocked ones are not.
        try await background.waitUntilAvailable()
        #expect(try await background.isAvailable())
        #expect(try await !foreground.isAvailable())
    }

    @Test(.timeLimit(.minutes(5))) func waitingHonoursCancellation() async throws {
        let test = try TestKeychain.inMemory(startsLocked: true)
        let keychain = test.keychain().accessibility(.whenUnlocked)
        let waiter = Task { try await keychain.waitUntilAvailable() }
        await test.store.keys.lockStates.waitForObservers(atLeast: 1)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(test.store.lockState == .neverUnlocked)
    }

    @Test(.timeLimit(.minutes(5))) func cancelledBeforeWaitingThrowsAtOnce() async throws {
        let test = try TestKeychain.inMemory(startsLocked: true)
        let keychain = test.keychain()
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await keychain.waitUntilAvailable()
        }
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }

    @Test(.timeLimit(.minutes(5))) func manyWaitersAllResume() async throws {
        let test = try TestKeychain.inMemory(startsLocked: true)
        let keychain = test.keychain().accessibility(.whenUnlocked)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { try await keychain.waitUntilAvailable() } }
            await test.store.keys.lockStates.waitForObservers(atLeast: 20)
            try test.unlock()
            try await group.waitForAll()
        }
    }

    @Test(.timeLimit(.minutes(5))) func waitingForObserversReturnsWhenTheyRegister() async throws {
        let test = try TestKeychain.inMemory(startsLocked: true)
        let signal = test.store.keys.lockStates
        #expect(signal.observerCount == 0)
        await signal.waitForObservers(atLeast: 0)
        let reached = Task { await signal.waitForObservers(atLeast: 2) }
        let first = test.store.lockStateUpdates()
        let second = test.store.lockStateUpdates()
        await reached.value
        #expect(signal.observerCount == 2)
        withExtendedLifetime((first, second)) {}
    }

    @Test func lockStateUpdatesReportTransitionsInOrder() async throws {
        let test = try TestKeychain.inMemory()
        var iterator = test.store.lockStateUpdates().makeAsyncIterator()
        #expect(await iterator.next() == .unlocked)
        test.lock()
        #expect(await iterator.next() == .locked)
        try test.unlock()
        #expect(await iterator.next() == .unlocked)
    }
}
