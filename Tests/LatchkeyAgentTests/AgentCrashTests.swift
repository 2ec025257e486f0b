import Dispatch
import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The agent killed with SIGKILL while clients write through it: every write it acknowledged is in the
/// keychain after a restart, its clients fail at once with -25291 instead of hanging, the restarted agent
/// starts locked, and the state it remembers outside the file covers every acknowledged write (so the
/// restart is not mistaken for a rollback). Each kill follows the n-th acknowledged write, never a delay.
struct AgentCrashTests {
    /// What the writers of one round acknowledged, and how each of them ended.
    final class Tally: Sendable {
        private struct State {
            var acknowledged: [String] = []
            var endings: [KeychainError] = []
        }

        private let state = Mutex(State())
        let target: Int
        let reached = DispatchSemaphore(value: 0)

        init(target: Int) { self.target = target }

        func acknowledge(_ account: String) {
            let count = state.withLock { state in
                state.acknowledged.append(account)
                return state.acknowledged.count
            }
            if count == target { reached.signal() }
        }

        func end(_ error: KeychainError) { state.withLock { $0.endings.append(error) } }

        var acknowledged: [String] { state.withLock { $0.acknowledged } }
        var endings: [KeychainError] { state.withLock { $0.endings } }
    }

    static let service = "agent-crash"

    /// Writes `<prefix>-<n>` items through its own connection to the agent until a write fails.
    static func write(socketPath: String, prefix: String, tally: Tally) {
        let client: AgentClient
        do {
            client = try AgentClient.connect(socketPath: socketPath)
        } catch {
            tally.end(error)
            return
        }
        var index = 0
        while true {
            let account = "\(prefix)-\(index)"
            do {
                try client.add(
                    .genericPassword,
                    attributes: [.service: .string(service), .account: .string(account)],
                    data: SecretData(string: "secret-\(account)")
                )
            } catch {
                tally.end(error)
                return
            }
            tally.acknowledge(account)
            index += 1
        }
    }

    /// The generation the agent remembers for the harness's keychain.
    static func rememberedGeneration(_ harness: AgentHarness) throws -> UInt64 {
        let directory = harness.keychain.directory + "/state/latchkey"
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".ledger-state") }
        )
        let data = try #require(FileManager.default.contents(atPath: directory + "/" + name))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require((object["generation"] as? NSNumber)?.uint64Value)
    }

    @Test func sigkillOfTheAgentMidWriteLosesNoAcknowledgedWrite() throws {
        let rounds = 6
        let writers = 3
        let harness = try AgentHarness()
        var agent = harness.agent
        defer { agent.kill(SIGKILL) }
        try harness.unlock()
        var acknowledged: [String] = []

        for round in 0..<rounds {
            let tally = Tally(target: Int.random(in: 1...80))
            let group = DispatchGroup()
            for writer in 0..<writers {
                DispatchQueue.global().async(group: group) {
                    Self.write(socketPath: harness.socketPath, prefix: "r\(round)-w\(writer)", tally: tally)
                }
            }
            #expect(tally.reached.wait(timeout: .now() + 120) == .success, "round \(round): too few writes")
            agent.kill(SIGKILL)
            let killed = agent.waitForExit(timeout: 60)
            try #require(killed.signal == SIGKILL, "round \(round): the agent ended by itself: \(killed.stderr)")

            #expect(group.wait(timeout: .now() + 60) == .success, "round \(round): a client hangs on a dead agent")
            let endings = tally.endings
            #expect(endings.count == writers)
            for ending in endings {
                #expect(ending.code == .notAvailable, "round \(round): \(ending.code.rawValue) \(ending.message)")
            }
            let dead = try harness.latchkey(
                ["find-generic-password", "-s", Self.service, "-a", "r0-w0-0", "-w"],
                extra: ["LATCHKEY_AGENT": "required"]
            )
            #expect(dead.status == 1 && dead.stderr.contains("-25291"), "a CLI client: \(dead.stderr)")
            acknowledged += tally.acknowledged
            #expect(
                try Self.rememberedGeneration(harness) >= UInt64(acknowledged.count),
                "round \(round): the remembered state covers every acknowledged write"
            )

            agent = try AgentRollbackTests.startAgent(harness)
            let client = try AgentClient.connect(socketPath: harness.socketPath)
            #expect(client.welcome.lockState == .neverUnlocked, "a restarted agent starts locked")
            _ = try client.perform(.unlock(.passphrase(SecretData(string: AgentHarness.passphrase))))
            let items = try client.findAll(
                ItemQuery(.genericPassword, attributes: [.service: .string(Self.service)]),
                withData: true
            )
            var stored: [String: String] = [:]
            for item in items {
                let account = try #require(item.attributes[.account]?.stringValue)
                #expect(stored[account] == nil, "\(account) is stored twice")
                stored[account] = item.data?.utf8String
            }
            for account in acknowledged {
                #expect(stored[account] == "secret-\(account)", "round \(round): acknowledged \(account) was lost")
            }
        }
        #expect(acknowledged.count >= rounds)
    }
}
