import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeyTesting
import Testing

/// `KeychainContext.makeDefault`: the process-wide context goes through the agent when one serves the
/// default keychain, and opens the file in process otherwise (LATCHKEY_AGENT=off, another keychain, no agent).
struct AgentContextTests {
    /// An agent served from this process, on a temporary runtime directory and keychain.
    struct InProcessAgent {
        let keychain = TemporaryKeychain()
        let server: AgentServer
        let environment: [String: String]

        init() throws {
            _ = try keychain.open()
            let runtime = keychain.directory + "/run"
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
            server = try AgentServer.start(
                AgentConfiguration(
                    keychainPath: keychain.path,
                    socketPath: runtime + "/latchkey/agent.sock",
                    policyPath: keychain.directory + "/access.json",
                    stateDirectory: keychain.directory + "/state",
                    storeOptions: keychain.options()
                )
            )
            environment = [
                "XDG_RUNTIME_DIR": runtime,
                "LATCHKEY_KEYCHAIN": keychain.path,
                "LATCHKEY_DEVICE_SECRET": keychain.deviceSecretPath,
                "HOME": keychain.directory,
            ]
        }
    }

    @Test func theDefaultContextUsesTheAgentServingTheDefaultKeychain() throws {
        let agent = try InProcessAgent()
        defer { agent.server.stop() }
        let context = try KeychainContext.makeDefault(environment: agent.environment)
        let client = try #require(context.service as? AgentClient)
        #expect(client.serves(agent.keychain.path))
        #expect(context.verifyPassphrase(agent.keychain.passphrase), "the passphrase check unlocks the agent")
        #expect(agent.server.lockState == .unlocked)
        try context.service.add(.genericPassword, attributes: [.service: .string("svc")], data: SecretData(string: "x"))
        let item = try context.service.findOne(ItemQuery(.genericPassword), withData: true)
        #expect(item.data == SecretData(string: "x"))
        #expect(item.attributes[.accessGroup] == .string(client.welcome.accessGroups[0]))
        #expect(!context.verifyPassphrase(SecretData(string: "wrong")))
    }

    @Test func theDefaultContextOpensTheFileWhenTheAgentIsOffOrServesAnotherKeychain() throws {
        let agent = try InProcessAgent()
        defer { agent.server.stop() }
        var off = agent.environment
        off["LATCHKEY_AGENT"] = "off"
        off["LATCHKEY_PASSPHRASE"] = "correct horse battery staple"
        let inProcess = try KeychainContext.makeDefault(environment: off)
        #expect(inProcess.service is KeychainStore)
        #expect(inProcess.store?.lockState == .unlocked, "unlocked in process from the environment")

        let other = TemporaryKeychain()
        _ = try other.open()
        var elsewhere = agent.environment
        elsewhere["LATCHKEY_KEYCHAIN"] = other.path
        elsewhere["LATCHKEY_DEVICE_SECRET"] = other.deviceSecretPath
        #expect(try KeychainContext.makeDefault(environment: elsewhere).service is KeychainStore)

        elsewhere["LATCHKEY_AGENT"] = "required"
        #expect(throws: KeychainError.self) { try KeychainContext.makeDefault(environment: elsewhere) }
    }

    @Test func requiredWithoutAnAgentFailsAndAutoFallsBack() throws {
        let keychain = TemporaryKeychain()
        _ = try keychain.open()
        let environment = [
            "XDG_RUNTIME_DIR": keychain.directory,
            "LATCHKEY_KEYCHAIN": keychain.path,
            "LATCHKEY_DEVICE_SECRET": keychain.deviceSecretPath,
            "LATCHKEY_PASSPHRASE": "correct horse battery staple",
        ]
        #expect(try AgentClient.discover(environment: environment) == nil)
        #expect(try KeychainContext.makeDefault(environment: environment).service is KeychainStore)
        var required = environment
        required["LATCHKEY_AGENT"] = "required"
        do {
            _ = try AgentClient.discover(environment: required)
            Issue.record("LATCHKEY_AGENT=required found an agent where none runs")
        } catch {
            #expect(error.code == .notAvailable)
        }
    }
}
