import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// Mutation fuzzing of the backup archive reader, `KeychainArchive.open` (issue 14): every mutated file
/// opens to exactly the archive that was sealed, or is refused with `.decode` or `.authFailed`; nothing
/// traps, and no mutation makes the reader run an expensive key derivation.
struct FuzzArchiveTests {
    /// Mutated archives tried. Each one that passes the header checks costs a scrypt derivation at the
    /// seed's test cost (about 35 ms in a debug build), which bounds the count.
    static let iterations = 240
    static let passphrase = "fuzz archive passphrase"
    /// The header's length in the seed: magic (8), version and KDF id (2), parameter length (2), scrypt
    /// parameters (9) and salt (32).
    static let headerLength = 53

    /// The seed: an archive exported by the CLI from a temporary keychain holding a generic password with
    /// a binary secret, an internet password and a key.
    static func exportedArchive() throws -> Data {
        let keychain = try CLIRunner.keychain()
        let store = try keychain.open()
        try store.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("alice"), .generic: .data(Data([0, 1, 2]))],
            data: SecretData(Data([0, 255, 10, 13, 0]))
        )
        try store.add(
            .internetPassword,
            attributes: [.server: .string("example.com"), .port: .number(443), .account: .string("bob")],
            data: SecretData(string: "inet secret")
        )
        try store.add(.key, attributes: [.label: .string("k")], data: SecretData(Data(repeating: 7, count: 32)))
        let archive = keychain.directory + "/seed.lkar"
        let exported = try CLIRunner.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing"],
            environment: CLIRunner.environment(keychain),
            input: passphrase + "\n"
        )
        try #require(exported.status == 0, "latchkey export: \(exported.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: archive))
    }

    /// Whether `bytes` carry an archive header whose scrypt parameters cost more than the seed's (`.testing`,
    /// log2 N = 10, r = 8, p = 1): such a file is valid input, but opening it would spend up to 1 GiB and
    /// seconds of scrypt per try, so the fuzz loop counts it instead of opening it.
    static func asksForCostlierKDF(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 21, bytes.starts(with: Array("LKARCHV1".utf8)), bytes[8] == 1, bytes[9] == 1 else {
            return false
        }
        let logN = bytes[12]
        let r = bytes[13..<17].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let p = bytes[17..<21].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return logN > 10 || r > 8 || p > 1
    }

    @Test func mutatedArchivesOpenUnchangedOrAreRefused() throws {
        let seed = try Self.exportedArchive()
        let passphrase = SecretData(string: Self.passphrase)
        let original = try KeychainArchive.open(seed, passphrase: passphrase)
        #expect(original.items.count == 3)
        let seeds = [[UInt8](seed)]
        try #require(12 + (Int(seeds[0][10]) << 8 | Int(seeds[0][11])) == Self.headerLength)
        var mutator = ByteMutator(seed: 0x5EED_A4C1)
        var opened = 0
        var refused: [Int32: Int] = [:]
        var costly = 0
        for iteration in 0..<Self.iterations {
            // Three tries in four mutate the header (magic, version, parameter length, scrypt parameters, salt)
            // and keep the sealed body; the fourth mutates anywhere.
            let mutated =
                iteration % 4 == 3
                ? mutator.mutate(seeds[0], splicingWith: seeds)
                : mutator.mutate(Array(seeds[0].prefix(Self.headerLength))) + seeds[0].dropFirst(Self.headerLength)
            if Self.asksForCostlierKDF(mutated) {
                costly += 1
                continue
            }
            do {
                let archive = try KeychainArchive.open(Data(mutated), passphrase: passphrase)
                opened += 1
                #expect(archive == original, "iteration \(iteration): a mutated archive opened to other contents")
            } catch {
                refused[error.code.rawValue, default: 0] += 1
                #expect(
                    error.code == .decode || error.code == .authFailed,
                    "iteration \(iteration): refused with \(error.code.rawValue)"
                )
            }
        }
        #expect(refused.values.reduce(0, +) > Self.iterations / 2 - costly, "opened \(opened), costly \(costly)")
    }

    /// A header whose parameter length points past the end, or whose scrypt parameters are out of range or
    /// would overflow the memory computation, is refused with `.decode` before any key derivation.
    @Test func damagedHeadersAreRefusedBeforeDerivingAKey() throws {
        let seed = [UInt8](try Self.exportedArchive())
        let passphrase = SecretData(string: Self.passphrase)
        var cases: [[UInt8]] = []
        var longLength = seed
        (longLength[10], longLength[11]) = (0xFF, 0xFF)
        cases.append(longLength)
        var zeroLength = seed
        (zeroLength[10], zeroLength[11]) = (0, 0)
        cases.append(zeroLength)
        for (offset, value) in [(12, UInt8(0)), (12, 0xFF), (13, 0xFF), (17, 0xFF)] {
            var damaged = seed
            damaged[offset] = value
            cases.append(damaged)
        }
        cases.append(Array(seed.prefix(12)))
        for damaged in cases {
            expectKeychainError(.decode) { try KeychainArchive.open(Data(damaged), passphrase: passphrase) }
        }
    }
}
