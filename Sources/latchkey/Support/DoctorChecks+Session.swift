import Foundation
import Latchkey
import LatchkeySecretService

extension DoctorChecks {
    /// Who owns `org.freedesktop.secrets` on the session bus now: Latchkey, gnome-keyring, KeePassXC, …, or
    /// nobody (then the D-Bus service file that wins says who the first client starts).
    func secretServiceOwner(busFiles: BusServiceFiles) -> DoctorFinding {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else {
            return DoctorFinding(
                check: "secret-service-owner",
                status: .action,
                summary: "no session bus: DBUS_SESSION_BUS_ADDRESS is not set, so the owner of "
                    + "org.freedesktop.secrets cannot be asked",
                next: "run `latchkey doctor` in a terminal of your desktop session",
                facts: ["owner": .null]
            )
        }
        let owner: SecretServiceOwner?
        do throws(SecretServiceError) {
            owner = try SecretServiceOwner.current(address: address)
        } catch {
            return DoctorFinding(
                check: "secret-service-owner",
                status: .action,
                summary: "the session bus did not answer: \(error.message)",
                next: "run `latchkey doctor` in a terminal of your desktop session",
                facts: ["owner": .null]
            )
        }
        guard let owner else {
            let startsLatchkey = busFiles.winner?.isLatchkey == true
            return DoctorFinding(
                check: "secret-service-owner",
                status: startsLatchkey ? .ok : .action,
                summary: "nobody owns org.freedesktop.secrets now; the first client starts "
                    + (busFiles.winner.map { "\($0.exec) (\($0.path))" } ?? "nothing (no D-Bus service file)"),
                next: startsLatchkey ? nil : "latchkey agent --secret-service",
                facts: ["owner": .null]
            )
        }
        var finding = DoctorFinding(
            check: "secret-service-owner",
            status: owner.provider == .latchkey ? .ok : .action,
            summary: "\(owner.provider == .latchkey ? "Latchkey" : owner.provider.rawValue): \(owner.summary) owns "
                + "org.freedesktop.secrets",
            details: (owner.collections ?? []).map { "collection \($0.name): \($0.locked ? "locked" : "unlocked")" },
            facts: ["owner": Self.json(owner)]
        )
        if let error = owner.collectionsError { finding.details.append("its collections are unknown: \(error)") }
        switch owner.provider {
        case .latchkey:
            break
        case .gnomeKeyring:
            // gnome-keyring does not allow replacement: stop its Secret Service, then start Latchkey's.
            let stop = "systemctl --user stop gnome-keyring-daemon.service gnome-keyring-daemon.socket"
            finding.next =
                owner.unlockedCollections.isEmpty
                ? "\(stop); latchkey agent --secret-service --replace"
                : "latchkey import --from gnome-keyring && \(stop); latchkey agent --secret-service --replace"
        case .keePassXC, .kWallet, .oo7, .other:
            finding.next =
                "latchkey agent --secret-service --replace   # if it does not allow replacement: "
                + owner.stopCommand.replacingOccurrences(of: "`", with: "")
        }
        return finding
    }

    /// The owner as JSON: unique name, pid, executable, provider and collections.
    static func json(_ owner: SecretServiceOwner) -> JSONValue {
        .object([
            "uniqueName": .string(owner.uniqueName),
            "pid": owner.process.map { .integer(Int64($0)) } ?? .null,
            "executable": owner.executable.map(JSONValue.string) ?? .null,
            "provider": .string(owner.provider.rawValue),
            "collections": owner.collections.map { collections in
                .array(collections.map { .object(["name": .string($0.name), "locked": .bool($0.locked)]) })
            } ?? .null,
        ])
    }

    /// Whether the agent answers on its socket, and its lock state.
    func agent() -> DoctorFinding {
        var environment = environment
        environment["LATCHKEY_AGENT"] = AgentMode.required.rawValue
        let client: AgentClient?
        let failure: String?
        do {
            client = try AgentClient.discover(environment: environment)
            failure = nil
        } catch {
            client = nil
            failure = error.message
        }
        guard let client else {
            return DoctorFinding(
                check: "agent",
                status: .action,
                summary: "no agent answers: \(failure ?? "no runtime directory")",
                next: unitFile("latchkey-agent.socket") == nil
                    ? "latchkey agent --secret-service &"
                    : "systemctl --user enable --now latchkey-agent.socket",
                facts: ["running": .bool(false)]
            )
        }
        let welcome = client.welcome
        let unlocked = welcome.lockState == .unlocked
        return DoctorFinding(
            check: "agent",
            status: unlocked ? .ok : .info,
            summary: "the agent (pid \(welcome.agentProcess)) serves \(welcome.keychain) at \(client.socketPath), "
                + (unlocked ? "unlocked" : "locked (\(welcome.lockState.rawValue))"),
            next: unlocked ? nil : "latchkey unlock",
            facts: [
                "running": .bool(true),
                "pid": .integer(Int64(welcome.agentProcess)),
                "keychain": .string(welcome.keychain),
                "socket": .string(client.socketPath),
                "lockState": .string(welcome.lockState.rawValue),
            ]
        )
    }
}
