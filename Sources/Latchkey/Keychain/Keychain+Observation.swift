extension Keychain {
    /// The changes to `key`, or to every key of the service when `key` is `nil`, made by this process
    /// or any other process using the same keychain file.
    ///
    /// ```swift
    /// for try await change in keychain.changes(forKey: "token") {
    ///     if change.kind == .removed { signOut() } else { reloadToken() }
    /// }
    /// ```
    ///
    /// Latency: a write through a `Keychain` in this process is reported at once. Other writes
    /// (another process, the `Security` module, a second store on the same file) are noticed through
    /// inotify on Linux, typically within a few milliseconds; a safety check every 2 seconds covers file
    /// systems without inotify (every 250 ms where inotify does not exist). Changes are net (see
    /// `KeychainChange`). While the items' class is locked nothing is reported; the changes made in
    /// the meantime are reported as soon as the keychain is unlocked. Secrets are never read.
    ///
    /// Through the per-user agent (`resolvedService()` is an agent's client) the items are read through
    /// the agent and the lock state is the agent's: the agent replaces its state file
    /// (`$XDG_RUNTIME_DIR/latchkey/agent.state`) on every lock change and every write it commits, which
    /// wakes the observer through inotify (as do writes to the keychain file made without the agent).
    /// While the agent does not answer nothing is reported; a restarted agent's changes are reported once
    /// it is unlocked.
    ///
    /// The current items are read before this returns (attributes only), so every change committed
    /// afterwards is reported. From `async` code the `async` overload does that read off the caller's
    /// executor.
    ///
    /// - Parameter key: One key, or `nil` for the whole service (in the keychain's access group and
    ///   sync policy).
    /// - Returns: A sequence that ends when the consuming task is cancelled, or throws when the keychain
    ///   cannot be opened or its file becomes unusable.
    public func changes(forKey key: String? = nil) -> KeychainChanges {
        let source: ObservationSource
        do {
            source = try ObservationSource.of(resolvedService())
        } catch {
            let (stream, continuation) = AsyncStream.makeStream(of: Result<KeychainChange, KeychainError>.self)
            continuation.yield(.failure(error))
            continuation.finish()
            return KeychainChanges(stream: stream)
        }
        return ChangeSubscription.start(source: source, query: query(forKey: key))
    }

    /// The changes to `key` or to the whole service (see the synchronous `changes(forKey:)`); the
    /// initial read runs off the caller's executor.
    public func changes(forKey key: String? = nil) async -> KeychainChanges {
        let keychain = self
        return await BlockingWork.run { keychain.changes(forKey: key) }
    }
}
