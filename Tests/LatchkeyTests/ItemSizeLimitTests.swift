import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One item-size limit on every path (issue 23, item 4): an item over it gets the same error and message in
/// process and through a real agent (whose frame limit is derived from it), an item at the limit round-trips
/// through the agent, and the CLI answers the same with and without the agent.
struct ItemSizeLimitTests {
    /// 20 MiB, the secret of the report.
    static let overLimit = 20 << 20

    static func secret(_ count: Int) -> SecretData {
        SecretData(Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }))
    }

    static func item(account: String, data: SecretData) -> NewItem {
        NewItem(.genericPassword, attributes: [.service: .string("big"), .account: .string(account)], data: data)
    }

    /// The in-process store on the agent's keychain file, with the groups the agent gives this process.
    static func inProcessStore(_ agent: AgentHarness, groups: [String]) throws -> KeychainStore {
        try KeychainStore.open(
            path: agent.keychain.path,
            credentials: [.passphrase(SecretData(string: AgentHarness.passphrase))],
            options: agent.keychain.options(accessGroups: groups)
        )
    }

    static func error(_ body: () throws -> Void) -> KeychainError? {
        do {
            try body()
            return nil
        } catch let error as KeychainError {
            return error
        } catch {
            return KeychainError(.internal, "unexpected \(error)")
        }
    }

    @Test func anOverLimitAddGivesTheSameErrorInProcessAndThroughTheAgent() throws {
        let agent = try AgentHarness()
        try agent.unlock()
        let client = try AgentClient.connect(socketPath: agent.socketPath)
        let store = try Self.inProcessStore(agent, groups: client.welcome.accessGroups)
        let item = Self.item(account: "twenty", data: Self.secret(Self.overLimit))

        let inProcess = try #require(Self.error { _ = try store.perform(.add(item)) })
        let throughAgent = try #require(Self.error { _ = try client.perform(.add(item)) })
        #expect(inProcess.code == .param)
        #expect(
            inProcess.message.hasPrefix(
                "The secret is 20 971 520 bytes; a keychain item holds at most 8 388 608 bytes."
            ),
            "\(inProcess.message)"
        )
        #expect(throughAgent == inProcess, "the same code and message through the agent")

        // The typed API's set (an update-or-add carrying the secret twice) and an update say the same.
        let set = try #require(
            Self.error {
                _ = try client.perform(
                    .updateFirstOrAdd(
                        match: ItemQuery(.genericPassword, attributes: [.service: .string("big")]),
                        changes: ItemChanges(data: item.data),
                        otherwise: item
                    )
                )
            }
        )
        #expect(set == inProcess)
        #expect(
            try client.perform(.add(Self.item(account: "small", data: SecretData(string: "x")))).items().count == 1
        )
        let update = try #require(
            Self.error {
                _ = try client.perform(
                    .update(UpdateRequest(ItemQuery(.genericPassword), changes: ItemChanges(data: item.data)))
                )
            }
        )
        #expect(update == inProcess)
    }

    /// A client that skips the check (its own wire code) is refused by the agent's engine with the same error:
    /// 8 MiB + 1 byte fits in a frame, so this is the engine's answer, not the frame limit's.
    @Test func theAgentsEngineRefusesAnOverLimitItemItself() throws {
        let agent = try AgentHarness()
        try agent.unlock()
        let client = try AgentClient.connect(socketPath: agent.socketPath)
        let store = try Self.inProcessStore(agent, groups: client.welcome.accessGroups)
        let item = Self.item(account: "one-over", data: Self.secret(ItemSizeLimit.maximumSecretBytes + 1))
        let inProcess = try #require(Self.error { _ = try store.perform(.add(item)) })
        #expect(inProcess.message.hasPrefix("The secret is 8 388 609 bytes"), "\(inProcess.message)")

        let descriptor = try UnixSocket.connect(to: agent.socketPath)
        defer { close(descriptor) }
        try AgentFrame.write(AgentHandshake.encode(AgentHandshake.Hello(accessGroups: nil)), to: descriptor)
        _ = try AgentHandshake.decode(AgentHandshake.Reply.self, from: AgentFrame.read(from: descriptor, within: 30))
            .result()
        try AgentFrame.write(try KeychainWireCodec.encode(.add(item)), to: descriptor)
        let answer = try AgentFrame.read(from: descriptor, limit: AgentFrame.maximumAnswerLength)
        let refused = try #require(Self.error { _ = try KeychainWireCodec.decodeOutcome(answer) })
        #expect(refused == inProcess)
    }

    @Test func anItemAtTheLimitRoundTripsThroughTheAgent() throws {
        let agent = try AgentHarness()
        try agent.unlock()
        let client = try AgentClient.connect(socketPath: agent.socketPath)
        let data = Self.secret(ItemSizeLimit.maximumSecretBytes)
        let query = ItemQuery(.genericPassword, attributes: [.service: .string("big"), .account: .string("limit")])
        _ = try client.perform(.add(Self.item(account: "limit", data: data)))
        #expect(try client.findOne(query, withData: true).data == data)

        // The typed API's set carries the secret twice in one request: it fits the frame too.
        let replaced = Self.secret(ItemSizeLimit.maximumSecretBytes)
        _ = try client.perform(
            .updateFirstOrAdd(
                match: query,
                changes: ItemChanges(data: replaced),
                otherwise: Self.item(account: "limit", data: replaced)
            )
        )
        #expect(try client.findOne(query, withData: true).data == replaced)
        // Several items at the limit come back in one answer.
        _ = try client.perform(.add(Self.item(account: "limit-2", data: data)))
        let both = try client.find(ItemQuery(.genericPassword), limit: .all, withData: true)
        #expect(both.count == 2)
    }

    /// An import whose items together are larger than one frame is sent in batches that each fit.
    @Test func aBatchOfRestoresLargerThanAFrameIsSplit() throws {
        let agent = try AgentHarness()
        try agent.unlock()
        let client = try AgentClient.connect(socketPath: agent.socketPath)
        let restores = (0..<3).map { index in
            KeychainOperation.restore(
                Self.item(account: "restored-\(index)", data: Self.secret(ItemSizeLimit.maximumSecretBytes)),
                replacingExisting: false
            )
        }
        guard case .batch(let outcomes) = try client.perform(.batch(restores)).storage else {
            Issue.record("not a batch answer")
            return
        }
        #expect(outcomes == Array(repeating: .restored(.added), count: 3))
        #expect(try client.find(ItemQuery(.genericPassword), limit: .all).count == 3)
    }

    @Test func theCLIAnswersAnOverLimitPasswordTheSameWithAndWithoutTheAgent() throws {
        let agent = try AgentHarness()
        try agent.unlock()
        let big = String(repeating: "p", count: Self.overLimit)
        let arguments = ["add-generic-password", "-s", "big", "-a", "cli", "--password-stdin"]
        let throughAgent = try agent.latchkey(arguments, input: big)
        let inProcess = try agent.latchkey(
            arguments,
            input: big,
            extra: ["LATCHKEY_AGENT": "off", "LATCHKEY_PASSPHRASE": AgentHarness.passphrase]
        )
        #expect(throughAgent.status != 0)
        #expect(
            throughAgent.stderr.contains("The secret is 20 971 520 bytes; a keychain item holds at most 8 388 608"),
            "\(throughAgent.stderr)"
        )
        #expect(throughAgent.stderr.contains("-50"), "the OSStatus is kept: \(throughAgent.stderr)")
        #expect(inProcess.status == throughAgent.status)
        #expect(inProcess.stderr == throughAgent.stderr)

        // At the limit, through the agent.
        let limit = String(repeating: "q", count: ItemSizeLimit.maximumSecretBytes)
        let added = try agent.latchkey(
            ["add-generic-password", "-s", "big", "-a", "at-limit", "--password-stdin"],
            input: limit
        )
        #expect(added.status == 0, "\(added.stderr)")
        let found = try agent.latchkey(["find-generic-password", "-s", "big", "-a", "at-limit", "-w"])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdoutData.count == ItemSizeLimit.maximumSecretBytes + 1 && found.stdout.hasPrefix("qqq"))
    }
}
