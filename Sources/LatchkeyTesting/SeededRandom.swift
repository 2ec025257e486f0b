import Foundation
import Latchkey
import Synchronization

/// A `KeychainRandom` whose bytes follow from a seed: the same seed gives the same sequence on every
/// run, on every machine.
///
/// The core takes only identifiers from its `KeychainRandom` (persistent references); keys and
/// nonces always come from the system's secure generator, so a seeded source makes identifiers
/// predictable without weakening any encryption. The generator is SplitMix64, which is fast and
/// well distributed but **not** cryptographic: never use it outside tests.
///
/// ```swift
/// import LatchkeyTesting
///
/// @Test func persistentReferencesAreReproducible() throws {
///     let first = try TestKeychain(random: SeededRandom(seed: 42))
///     let second = try TestKeychain(random: SeededRandom(seed: 42))
///     try first.keychain().set("v", forKey: "k")
///     try second.keychain().set("v", forKey: "k")
///     let a = try #require(try first.keychain().items().first)
///     let b = try #require(try second.keychain().items().first)
///     #expect(a.persistentReference == b.persistentReference)
/// }
/// ```
///
/// `Sendable`: the generator's state is behind a `Mutex`; calls from several threads each get their
/// own bytes of the one sequence (in whichever order they take the lock).
public final class SeededRandom: KeychainRandom, Sendable {
    /// The seed the sequence started from.
    public let seed: UInt64
    private let state: Mutex<UInt64>

    /// Makes a generator at the start of the sequence of `seed`.
    ///
    /// - Parameter seed: Any value; equal seeds give equal sequences.
    public init(seed: UInt64) {
        self.seed = seed
        state = Mutex(seed)
    }

    /// The next `count` bytes of the sequence.
    ///
    /// ```swift
    /// let random = SeededRandom(seed: 1)
    /// let a = random.bytes(16)
    /// let b = random.bytes(16)     // differs from `a`; a new SeededRandom(seed: 1) gives `a` again
    /// ```
    public func bytes(_ count: Int) -> Data {
        precondition(count >= 0, "SeededRandom.bytes(_:) takes a non-negative count")
        return state.withLock { state in
            var data = Data(capacity: count)
            while data.count < count {
                var word = Self.next(&state).littleEndian
                let take = min(8, count - data.count)
                withUnsafeBytes(of: &word) { data.append(contentsOf: $0.prefix(take)) }
            }
            return data
        }
    }

    /// One step of SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators").
    private static func next(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
