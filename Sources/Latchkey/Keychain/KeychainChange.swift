/// One change to a key of a `Keychain`, as `Keychain.changes(forKey:)` reports it.
///
/// Changes are net: when a key is written several times between two looks, one `.updated` is
/// reported; an item created and removed between two looks is not reported at all.
public struct KeychainChange: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the key.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The key now has an item; it had none.
        case added
        /// The key's item was rewritten (secret or attributes), or replaced by a new item.
        case updated
        /// The key's item was removed.
        case removed
    }

    /// The key (the item's account).
    public var key: String
    /// What happened.
    public var kind: Kind
    /// The item's metadata after the change; `nil` for `.removed`.
    public var metadata: KeychainItemMetadata?

    /// Makes a change value.
    public init(key: String, kind: Kind, metadata: KeychainItemMetadata?) {
        self.key = key
        self.kind = kind
        self.metadata = metadata
    }

    /// The kind only; the key is an attribute value and is not printed.
    public var description: String { "KeychainChange(\(kind))" }
}

/// The changes of a key or of a whole service, as an `AsyncSequence`; see `Keychain.changes(forKey:)`.
///
/// The sequence never ends by itself: stop iterating (or cancel the task) to stop observing. It
/// throws a `KeychainError` only when the keychain file becomes unusable (for example deleted); a
/// locked keychain is not an error: changes are reported once it can be read again.
public struct KeychainChanges: AsyncSequence, Sendable {
    /// A change.
    public typealias Element = KeychainChange
    /// Why observation stopped.
    public typealias Failure = KeychainError

    let stream: AsyncStream<Result<KeychainChange, KeychainError>>

    /// Makes the iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator())
    }

    /// Iterates over changes.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Result<KeychainChange, KeychainError>>.AsyncIterator

        /// The next change, waiting for it; `nil` when the consuming task is cancelled.
        public mutating func next() async throws(KeychainError) -> KeychainChange? {
            guard let result = await base.next() else { return nil }
            return try result.get()
        }

        /// The next change, waiting for it on `actor`; `nil` when the consuming task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(KeychainError) -> KeychainChange?
        {
            guard let result = await base.next(isolation: actor) else { return nil }
            return try result.get()
        }
    }
}
