import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// Mutation fuzzing of the agent's wire codec (issue 14; the binary protocol version 2 since issue 15): every
/// mutated or random frame decodes or is refused with the documented error, never traps, and whatever
/// decodes survives its own round trip.
struct FuzzWireCodecTests {
    /// Mutated frames tried per decoder.
    static let iterations = 3000

    /// Seeds larger than this (the 1 MiB secrets) are left out: mutating them would only be slow.
    static let largestSeed = 8192

    /// The seeds: every operation of the round-trip tests, encoded.
    static func operationSeeds() throws -> [[UInt8]] {
        try OperationWireTests.operations.map { try [UInt8](KeychainWireCodec.encode($0)) }
            .filter { $0.count <= largestSeed }
    }

    /// The seeds: outcomes of every kind and a carried error, encoded.
    static func outcomeSeeds() throws -> [[UInt8]] {
        let item = FoundItem(
            itemClass: .internetPassword,
            attributes: [.account: .string("a"), .port: .number(443), .generic: .data(Data([0, 1]))],
            data: SecretData(string: "s"),
            persistentReference: Data(repeating: 2, count: 20)
        )
        let results: [Result<KeychainOutcome, KeychainError>] = [
            .success(.items([item])), .success(.count(2)), .success(.exists(true)), .success(.lockState(.locked)),
            .success(.accessGroups(["g"])), .success(.changeCounter(9)), .success(.restored(.replaced)),
            .success(.batch([.count(0), .items([])])), .failure(KeychainError(.duplicateItem, "already there")),
        ]
        return try (results + OperationWireTests.outcomes.map { .success($0) })
            .map { try [UInt8](KeychainWireCodec.encode($0)) }
            .filter { $0.count <= largestSeed }
    }

    @Test func mutatedOperationFramesDecodeOrAreRefused() throws {
        let seeds = try Self.operationSeeds()
        var mutator = ByteMutator(seed: 0x5EED_0001)
        var decoded = 0
        for iteration in 0..<Self.iterations {
            let frame = Data(mutator.mutate(seeds[iteration % seeds.count], splicingWith: seeds, textTokens: true))
            do {
                let operation = try KeychainWireCodec.decodeOperation(frame)
                decoded += 1
                let again = try KeychainWireCodec.decodeOperation(KeychainWireCodec.encode(operation))
                #expect(again == operation, "iteration \(iteration): a decoded operation does not round-trip")
            } catch {
                #expect(
                    error.code == .decode || error.code == .unimplemented,
                    "iteration \(iteration): refused with \(error.code.rawValue)"
                )
            }
        }
        #expect(decoded < Self.iterations, "no mutation was refused: the mutator does nothing")
    }

    @Test func mutatedOutcomeFramesDecodeOrAreRefused() throws {
        let seeds = try Self.outcomeSeeds()
        var mutator = ByteMutator(seed: 0x5EED_0002)
        var refused = 0
        for iteration in 0..<Self.iterations {
            let frame = Data(mutator.mutate(seeds[iteration % seeds.count], splicingWith: seeds, textTokens: true))
            do {
                let outcome = try KeychainWireCodec.decodeOutcome(frame)
                let again = try KeychainWireCodec.decodeOutcome(KeychainWireCodec.encode(.success(outcome)))
                #expect(again == outcome, "iteration \(iteration): a decoded outcome does not round-trip")
            } catch {
                // A frame may carry any status code; whatever it carries must travel unchanged.
                refused += 1
                do {
                    _ = try KeychainWireCodec.decodeOutcome(KeychainWireCodec.encode(.failure(error)))
                    Issue.record("iteration \(iteration): a carried error decoded as an outcome")
                } catch let carried {
                    #expect(carried.code == error.code, "iteration \(iteration): the carried code changed")
                }
            }
        }
        #expect(refused > 0, "no mutation was refused: the mutator does nothing")
    }

    /// Random bytes after a version byte (SeededRandom, so a failure replays): decoded or refused with
    /// `decode`; an outcome frame whose reply tag is 2 (an error) may carry any code.
    @Test func randomFramesDecodeOrAreRefused() throws {
        let random = SeededRandom(seed: 0x5EED_0003)
        for iteration in 0..<Self.iterations {
            let length = Int(random.bytes(1)[0]) % 48
            let frame = Data([UInt8(KeychainWireCodec.version)]) + random.bytes(length)
            do {
                let operation = try KeychainWireCodec.decodeOperation(frame)
                #expect(try KeychainWireCodec.decodeOperation(KeychainWireCodec.encode(operation)) == operation)
            } catch {
                #expect(error.code == .decode, "iteration \(iteration): refused with \(error.code.rawValue)")
            }
            do {
                let outcome = try KeychainWireCodec.decodeOutcome(frame)
                #expect(try KeychainWireCodec.decodeOutcome(KeychainWireCodec.encode(.success(outcome))) == outcome)
            } catch {
                if frame.count < 2 || frame[1] != 2 {
                    #expect(error.code == .decode, "iteration \(iteration): refused with \(error.code.rawValue)")
                }
            }
        }
    }

    /// The mutator itself is deterministic: the same seed gives the same inputs, so a failure replays.
    @Test func theSameSeedGivesTheSameInputs() throws {
        let seeds = try Self.operationSeeds()
        var first = ByteMutator(seed: 7)
        var second = ByteMutator(seed: 7)
        for index in 0..<50 {
            #expect(
                first.mutate(seeds[index % seeds.count], splicingWith: seeds)
                    == second.mutate(seeds[index % seeds.count], splicingWith: seeds)
            )
        }
    }
}
