import Foundation

/// A deterministic byte-string mutator for fuzz tests of your own parsers (and Latchkey's): SplitMix64 from a fixed seed, so every run
/// (and every machine) tries the same inputs and a failure names the seed and iteration to replay.
///
/// Each `mutate` applies one to four of: bit flips, random bytes, byte insertions and deletions,
/// truncations, splices with another seed, length-field bumps (a byte moved by ±1 or set to 0x00, 0x7F,
/// 0x80 or 0xFF) and, for text formats, insertions of troublesome tokens (huge numbers, `null`, nesting).
public struct ByteMutator: Sendable {
    private var state: UInt64

    /// A mutator at the start of the sequence of `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 bits of SplitMix64.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A value in `0..<bound` (`bound` > 0).
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// Tokens that stress text parsers (JSON, `key=value` lines) when inserted anywhere.
    public static let tokens: [[UInt8]] = [
        "0", "-1", "9223372036854775808", "-9223372036854775809", "1e999", "null", "\"\"", "[]", "{}", "[[[[",
        "\"\\u0000\"", "\"\\ud800\"", "true", "\n", "\r\n", "=", "\0", "url=", "protocol=https\n", "host=\n",
        "password=", "\u{FFFD}",
    ].map { Array($0.utf8) }

    /// `input` with one to four random mutations; `others` are the seeds to splice from.
    public mutating func mutate(
        _ input: [UInt8],
        splicingWith others: [[UInt8]] = [],
        textTokens: Bool = false
    ) -> [UInt8] {
        var bytes = input
        for _ in 0...below(4) {
            switch below(textTokens ? 9 : 8) {
            case 0:
                guard !bytes.isEmpty else { continue }
                bytes[below(bytes.count)] ^= UInt8(1) << UInt8(below(8))
            case 1:
                guard !bytes.isEmpty else { continue }
                bytes[below(bytes.count)] = UInt8(truncatingIfNeeded: next())
            case 2:
                let count = 1 + below(8)
                let bytesToInsert = (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
                bytes.insert(contentsOf: bytesToInsert, at: below(bytes.count + 1))
            case 3:
                guard !bytes.isEmpty else { continue }
                let start = below(bytes.count)
                bytes.removeSubrange(start..<min(bytes.count, start + 1 + below(16)))
            case 4:
                bytes = Array(bytes.prefix(below(bytes.count + 1)))
            case 5:
                guard let other = others.isEmpty ? nil : others[below(others.count)], !other.isEmpty else { continue }
                let cut = below(bytes.count + 1)
                bytes = Array(bytes.prefix(cut)) + Array(other.suffix(from: below(other.count)))
            case 6:
                guard !bytes.isEmpty else { continue }
                let index = below(bytes.count)
                let choices: [UInt8] = [bytes[index] &+ 1, bytes[index] &- 1, 0x00, 0x7F, 0x80, 0xFF]
                bytes[index] = choices[below(choices.count)]
            case 7:
                guard !bytes.isEmpty else { continue }
                let start = below(bytes.count)
                let chunk = bytes[start..<min(bytes.count, start + 1 + below(32))]
                bytes.insert(contentsOf: chunk, at: below(bytes.count + 1))
            default:
                bytes.insert(contentsOf: Self.tokens[below(Self.tokens.count)], at: below(bytes.count + 1))
            }
        }
        return bytes
    }
}
