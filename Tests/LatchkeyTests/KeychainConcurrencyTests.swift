import Foundation
import Latchkey
import LatchkeyTesting
import Testing

struct KeychainConcurrencyTests {
    /// 8 tasks × 1 000 mixed calls (set, get, contains, remove, list, Codable, shared-key upserts);
    /// every task checks its reads against its own model, and the final contents must equal the
    /// union of the models: nothing lost, nothing duplicated, no error.
    @Test(.timeLimit(.minutes(5))) func eightTasksThousandMixedCallsLoseNothing() async throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain(service: "stress")
        let models = try await withThrowingTaskGroup(of: [String: String].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var model: [String: String] = [:]
                    var generator = SplitMix(seed: UInt64(task))
                    for call in 0..<1_000 {
                        let key = "t\(task)-k\(generator.next() % 20)"
                        switch generator.next() % 8 {
                        case 0, 1:
                            let value = "v\(call)"
                            try await keychain.set(value, forKey: key)
                            model[key] = value
                        case 2:
                            #expect(try await keychain.string(forKey: key) == model[key])
                        case 3:
                            #expect(try await keychain.contains(key) == (model[key] != nil))
                        case 4:
                            #expect(try await keychain.removeValue(forKey: key) == (model[key] != nil))
                            model[key] = nil
                        case 5:
                            try await keychain.set("\(task)", forKey: "shared")
                        case 6:
                            let session = KeychainTestSession.sample
                            try await keychain.set(session, forKey: key)
                            #expect(try await keychain.value(KeychainTestSession.self, forKey: key) == session)
                            try await keychain.set("c\(call)", forKey: key)
                            model[key] = "c\(call)"
                        default:
                            let mine = try await keychain.allKeys().filter { $0.hasPrefix("t\(task)-") }
                            #expect(Set(mine) == Set(model.keys))
                        }
                    }
                    return model
                }
            }
            var all: [String: String] = [:]
            for try await model in group { all.merge(model) { _, new in new } }
            return all
        }
        var stored: [String: String] = [:]
        for item in try await keychain.items() where item.key != "shared" {
            #expect(stored[item.key] == nil, "duplicate key")
            stored[item.key] = try await keychain.string(forKey: item.key)
        }
        #expect(stored == models)
        #expect(try await keychain.items().filter { $0.key == "shared" }.count == 1)
        #expect(try test.store.verifyIntegrity().isSound)
    }

    @Test(.timeLimit(.minutes(5))) func keychainValuesCrossTasksAndActors() async throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain()
        @MainActor func writeFromMain() async throws { try await keychain.set("main", forKey: "main") }
        try await writeFromMain()
        let detached = Task.detached { try await keychain.string(forKey: "main") }
        #expect(try await detached.value == "main")
    }

    /// A small deterministic generator (SplitMix64).
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }
}
