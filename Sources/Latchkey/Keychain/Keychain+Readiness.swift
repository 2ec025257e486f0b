extension Keychain {
    /// Waits until the items this keychain reads can be read, then returns.
    ///
    /// "Readable" follows the keychain's `accessibility`: `whenUnlocked` classes need the keychain
    /// unlocked in this process; `afterFirstUnlock` classes need one unlock since the keychain was
    /// opened (they stay readable after `lock()`); `always` classes are readable at once. Returns
    /// immediately when that is already the case.
    ///
    /// Use it where an app would otherwise treat a locked keychain as "logged out":
    ///
    /// ```swift
    /// do {
    ///     token = try await keychain.string(forKey: "token")
    /// } catch KeychainError.Code.interactionNotAllowed {
    ///     try await keychain.waitUntilAvailable()
    ///     token = try await keychain.string(forKey: "token")
    /// }
    /// ```
    ///
    /// The signal is the lock state of the keychain this one uses: in process, the store's
    /// (`KeychainStore.lockStateUpdates()`): any unlock (a passphrase typed into a prompt, a key file) wakes
    /// every waiter at once, with no polling. Through the per-user agent (`resolvedService()` is an agent's
    /// client) it is the agent's lock state: `latchkey unlock` from any process wakes the waiter through the
    /// agent's state file (see `changes(forKey:)`).
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled; `KeychainError` when the
    ///   default store cannot be opened or the agent does not answer.
    public func waitUntilAvailable() async throws {
        try Task.checkCancellation()
        let keychain = self
        let source = try await BlockingWork.run { () throws(KeychainError) -> ObservationSource in
            try ObservationSource.of(keychain.resolvedService())
        }
        for await state in source.lockStateUpdates() where state.permits(accessibility) {
            return
        }
        throw CancellationError()
    }

    /// The lock state of the keychain this one uses now, then every change, until the consumer stops
    /// iterating.
    ///
    /// In process this is the store's lock state in this process (`KeychainStore.lockStateUpdates()`);
    /// through the per-user agent it is the agent's, shared by every client: after `latchkey lock` in
    /// another process this sequence yields `.locked`, after `latchkey unlock` `.unlocked`. Transitions
    /// quicker than the consumer may be coalesced (the newest eight are buffered).
    ///
    /// ```swift
    /// for await state in try keychain.lockStateUpdates() where state == .locked { hideSecrets() }
    /// ```
    ///
    /// - Throws: `KeychainError` when the default store cannot be opened or the agent does not answer.
    public func lockStateUpdates() throws(KeychainError) -> AsyncStream<LockState> {
        try ObservationSource.of(resolvedService()).lockStateUpdates()
    }

    /// Whether the items this keychain reads are readable now (see `waitUntilAvailable()`).
    ///
    /// Through the per-user agent (`resolvedService()` is an agent's client) this is the agent's lock
    /// state, asked with one `.lockState` request.
    ///
    /// - Throws: `KeychainError` when the default store cannot be opened or the agent cannot be reached.
    public func isAvailable() throws(KeychainError) -> Bool {
        let service = try resolvedService()
        if let store = service as? KeychainStore { return store.keys.lockStates.current.permits(accessibility) }
        guard case .lockState(let state) = try service.perform(.lockState).storage else {
            throw KeychainError(
                .internalComponent,
                "The keychain service answered a lock-state request with another outcome."
            )
        }
        return state.permits(accessibility)
    }
}
