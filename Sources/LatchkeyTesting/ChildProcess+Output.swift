import Dispatch
import Foundation
import Synchronization

extension ChildProcess {
    /// What the reader threads and the termination handler collected, as waiters see it.
    struct Output: Sendable {
        /// Standard output so far.
        var output: [UInt8] = []
        /// Standard error so far.
        var errorOutput: [UInt8] = []
        /// Whether standard output reached end of file.
        var outputEnded = false
        /// Whether standard error reached end of file.
        var errorEnded = false
        /// The exit status (or signal number), once the child was reaped.
        var exitStatus: Int32?
        /// The signal that ended the child, if one did.
        var exitSignal: Int32?

        /// The number of newlines on standard output.
        var newlines: Int { output.lazy.filter { $0 == 0x0A }.count }

        /// Whether the child exited and both its streams ended: nothing more can arrive.
        var isOver: Bool { exitStatus != nil && outputEnded && errorEnded }

        /// The complete lines of `stream` so far.
        func lines(of stream: Stream) -> [String] {
            Output.completeLines(of: String(decoding: stream == .output ? output : errorOutput, as: UTF8.self))
        }

        /// Whether `stream` reached end of file.
        func ended(_ stream: Stream) -> Bool {
            stream == .output ? outputEnded : errorEnded
        }

        /// Adds `bytes` to what `stream` wrote.
        mutating func append(_ bytes: ArraySlice<UInt8>, to stream: Stream) {
            if stream == .output { output += bytes } else { errorOutput += bytes }
        }

        /// Notes that `stream` reached end of file.
        mutating func end(_ stream: Stream) {
            if stream == .output { outputEnded = true } else { errorEnded = true }
        }

        /// The newline-terminated lines of `text`; an unterminated last fragment is left out.
        static func completeLines(of text: String) -> [String] {
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.removeLast()
            return lines
        }
    }

    /// The collected output and the waiters on it, behind one lock: every change wakes the waiters it
    /// satisfies.
    final class Shared: Sendable {
        /// A wait in progress: what ends it and how to wake the waiting thread or task.
        private struct Waiter {
            var isDone: @Sendable (Output) -> Bool
            var wake: @Sendable () -> Void
        }

        private struct State {
            var output = Output()
            var waiters: [UUID: Waiter] = [:]
        }

        private let state = Mutex(State())

        /// Reads the output under the lock.
        func read<T>(_ body: (Output) -> T) -> T {
            state.withLock { body($0.output) }
        }

        /// Applies `change` and wakes every waiter it satisfies.
        func change(_ change: (inout Output) -> Void) {
            let woken: [Waiter] = state.withLock { state in
                change(&state.output)
                let done = state.waiters.filter { $0.value.isDone(state.output) }
                for id in done.keys { state.waiters[id] = nil }
                return Array(done.values)
            }
            for waiter in woken { waiter.wake() }
        }

        /// Registers a waiter unless `isDone` already holds; returns whether it was registered.
        private func register(_ id: UUID, _ waiter: Waiter) -> Bool {
            state.withLock { state in
                if waiter.isDone(state.output) { return false }
                state.waiters[id] = waiter
                return true
            }
        }

        /// Removes a waiter whose deadline passed; returns whether it was still waiting (not woken).
        private func withdraw(_ id: UUID) -> Bool {
            state.withLock { $0.waiters.removeValue(forKey: id) != nil }
        }

        /// Blocks the calling thread until `isDone` holds or `timeout` seconds pass (`nil`: no deadline).
        ///
        /// - Returns: Whether `isDone` held before the deadline.
        @discardableResult
        func block(timeout: TimeInterval?, until isDone: @escaping @Sendable (Output) -> Bool) -> Bool {
            let semaphore = DispatchSemaphore(value: 0)
            let id = UUID()
            guard register(id, Waiter(isDone: isDone, wake: { semaphore.signal() })) else { return true }
            let deadline: DispatchTime = timeout.map { .now() + $0 } ?? .distantFuture
            if semaphore.wait(timeout: deadline) == .success { return true }
            if withdraw(id) { return false }
            // Woken between the deadline and the withdrawal: take the wake-up that is on its way.
            semaphore.wait()
            return true
        }

        /// Suspends the calling task until `isDone` holds or `timeout` seconds pass, blocking no thread.
        ///
        /// - Returns: Whether `isDone` held before the deadline.
        func suspend(timeout: TimeInterval, until isDone: @escaping @Sendable (Output) -> Bool) async -> Bool {
            let id = UUID()
            return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let waiter = Waiter(isDone: isDone, wake: { continuation.resume(returning: true) })
                guard register(id, waiter) else {
                    continuation.resume(returning: true)
                    return
                }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
                    if withdraw(id) { continuation.resume(returning: false) }
                }
            }
        }
    }
}
