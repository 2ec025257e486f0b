import Dispatch

/// Runs blocking keychain work (SQLite, fsync, scrypt, AES) on dedicated threads, so that `async`
/// callers never block their executor (the main actor or the cooperative thread pool).
package enum BlockingWork {
    /// GCD caps the threads of a concurrent queue; GRDB's pool lets reads run in parallel and
    /// serialises writes.
    static let queue = DispatchQueue(label: "latchkey.blocking-work", qos: .userInitiated, attributes: .concurrent)

    /// Runs `body` on the work queue and resumes the caller with its result.
    ///
    /// The work is not cancellable once started: a write either commits or rolls back as a whole.
    package static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(E) -> T in try body() })
            }
        }
        return try result.get()
    }
}

extension KeychainStore {
    /// Runs blocking store calls off the caller's executor and returns their result.
    ///
    /// Every `KeychainStore` call blocks its thread on SQLite and crypto; from `async` code, wrap them:
    ///
    /// ```swift
    /// let item = try await store.perform { store in
    ///     try store.findOne(ItemQuery(.genericPassword, attributes: [.account: .string("alice")]), withData: true)
    /// }
    /// ```
    ///
    /// `body` runs on a dedicated concurrent queue (not the cooperative thread pool) and is not
    /// cancelled once started. The high-level `Keychain` offers `async` variants of all its calls.
    ///
    /// - Parameter body: The work; it receives this store.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (a closure written without a thrown type throws `any Error`; write
    ///   `{ (store) throws(KeychainError) in ... }` to keep `KeychainError`).
    public func perform<T: Sendable, E: Error>(
        _ body: @escaping @Sendable (KeychainStore) throws(E) -> T
    )
        async throws(E) -> T
    {
        try await BlockingWork.run { () throws(E) -> T in try body(self) }
    }

    /// The lock state now and after every change in this process: unlock, lock, and any later source
    /// of unlocks (such as a per-user agent handing this process its keys) feed the same signal.
    ///
    /// The first element is the current state; consecutive elements differ. The sequence ends when the
    /// consuming task is cancelled.
    public func lockStateUpdates() -> AsyncStream<LockState> {
        keys.lockStates.updates()
    }
}
