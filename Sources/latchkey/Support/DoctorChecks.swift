import Foundation

/// The checks of `latchkey doctor`: the session (who owns `org.freedesktop.secrets`, the agent) and the
/// files that make Latchkey the session's keychain (user units, D-Bus service files, gnome-keyring's
/// autostart entries and units, PAM lines, gnome-keyring's keyrings), each finding with its next step.
struct DoctorChecks {
    /// The environment the session checks use (`DBUS_SESSION_BUS_ADDRESS`, `XDG_RUNTIME_DIR`).
    var environment: [String: String]
    /// Where files are read.
    var paths: DoctorPaths

    /// Every finding, in the order the takeover steps take them (docs/install.md).
    func run() -> [DoctorFinding] {
        let busFiles = busServiceFiles()
        return [
            secretServiceOwner(busFiles: busFiles), agent(), units(), secretServiceDropIn(), busFiles.finding,
            gnomeKeyringAutostart(), gnomeKeyringUnits(), pam(), keyrings(),
        ]
    }

    /// The unit's file in the first unit directory that has it, or `nil`.
    func unitFile(_ name: String) -> String? {
        paths.unitDirectories.map { $0 + "/" + name }.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Whether the user masked `unit` (`systemctl --user mask`: a link to /dev/null in the user's directory).
    func isMasked(_ unit: String) -> Bool {
        let path = paths.userUnitDirectory + "/" + unit
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == "/dev/null"
    }

    /// Whether `unit` is enabled for `target` (`<target>.wants/<unit>` in the user's or the system's
    /// `/etc/systemd/user`), or `nil` when not.
    func wantsLink(_ unit: String, target: String) -> String? {
        [paths.userUnitDirectory, paths.systemUnitDirectories[0]].map { "\($0)/\(target).wants/\(unit)" }
            .first { (try? FileManager.default.destinationOfSymbolicLink(atPath: $0)) != nil }
    }

    /// The agent's user units: `latchkey-agent.socket` and `.service` installed, the socket enabled.
    func units() -> DoctorFinding {
        let names = ["latchkey-agent.socket", "latchkey-agent.service"]
        let found = names.map(unitFile)
        let facts: [String: JSONValue] = [
            "socket": found[0].map(JSONValue.string) ?? .null,
            "service": found[1].map(JSONValue.string) ?? .null,
        ]
        let missing = zip(names, found).filter { $0.1 == nil }.map(\.0)
        guard missing.isEmpty else {
            return DoctorFinding(
                check: "units",
                status: .action,
                summary: "\(missing.joined(separator: " and ")) not installed (looked in "
                    + "\(paths.unitDirectories.joined(separator: ", ")))",
                next: "sudo scripts/install.sh   # from the repository (or: sudo apt install ./latchkey_*.deb)",
                facts: facts.merging(["enabled": .bool(false)]) { $1 }
            )
        }
        let masked = names.filter(isMasked)
        if !masked.isEmpty {
            return DoctorFinding(
                check: "units",
                status: .action,
                summary: "\(masked.joined(separator: " and ")) masked",
                next: "systemctl --user unmask \(masked.joined(separator: " "))",
                facts: facts.merging(["enabled": .bool(false)]) { $1 }
            )
        }
        let link = wantsLink("latchkey-agent.socket", target: "sockets.target")
        var finding = DoctorFinding(
            check: "units",
            status: link == nil ? .action : .ok,
            summary: link == nil
                ? "latchkey-agent.socket is installed but not enabled"
                : "latchkey-agent.socket and .service installed, the socket enabled",
            details: found.compactMap(\.self) + (link.map { ["enabled by \($0)"] } ?? []),
            facts: facts.merging(["enabled": .bool(link != nil)]) { $1 }
        )
        if link == nil { finding.next = "systemctl --user enable --now latchkey-agent.socket" }
        return finding
    }

    /// The drop-in that starts the agent with `--secret-service`.
    func secretServiceDropIn() -> DoctorFinding {
        let relative = "latchkey-agent.service.d/secret-service.conf"
        if let file = unitFile(relative) {
            return DoctorFinding(
                check: "secret-service-drop-in",
                status: .ok,
                summary: "the agent's unit starts it with --secret-service (\(file))",
                facts: ["path": .string(file)]
            )
        }
        let shipped = paths.shipped("systemd/user/" + relative)
        let target = paths.typed(paths.userUnitDirectory + "/latchkey-agent.service.d")
        return DoctorFinding(
            check: "secret-service-drop-in",
            status: .action,
            summary: "no \(relative) in any unit directory: the agent's unit does not own org.freedesktop.secrets",
            next: shipped.map {
                "mkdir -p \(target) && ln -sf \($0) \(target)/ && systemctl --user daemon-reload"
            } ?? "sudo scripts/install.sh   # installs <prefix>/share/latchkey/systemd/user/\(relative)",
            facts: ["path": .null, "shipped": shipped.map(JSONValue.string) ?? .null]
        )
    }

    /// gnome-keyring's Secret Service autostart entry (`gnome-keyring-secrets.desktop`) and whether the user's
    /// autostart directory hides it.
    func gnomeKeyringAutostart() -> DoctorFinding {
        let name = "gnome-keyring-secrets.desktop"
        let system = paths.configDirectories.map { $0 + "/autostart/" + name }
            .first { FileManager.default.fileExists(atPath: $0) }
        guard let system else {
            return DoctorFinding(
                check: "gnome-keyring-autostart",
                status: .ok,
                summary: "no \(name) in \(paths.configDirectories.map { $0 + "/autostart" }.joined(separator: ", "))",
                facts: ["entry": .null, "hidden": .bool(false)]
            )
        }
        let user = paths.userAutostartDirectory + "/" + name
        let lines =
            (try? String(contentsOfFile: user, encoding: .utf8))?.split(separator: "\n")
            .map { $0.replacingOccurrences(of: " ", with: "") } ?? []
        let hidden = lines.contains("Hidden=true") || lines.contains("X-GNOME-Autostart-enabled=false")
        let typed = paths.typed(user)
        return DoctorFinding(
            check: "gnome-keyring-autostart",
            status: hidden ? .ok : .action,
            summary: hidden
                ? "gnome-keyring's Secret Service autostart entry \(system) is hidden by \(user)"
                : "gnome-keyring's Secret Service autostart entry \(system) starts it at login",
            next: hidden
                ? nil
                : "mkdir -p \(paths.typed(paths.userAutostartDirectory)) && cp \(system) \(typed) && "
                    + "echo Hidden=true >> \(typed)",
            facts: ["entry": .string(system), "hidden": .bool(hidden)]
        )
    }

    /// gnome-keyring's user units (Debian 12: `gnome-keyring-daemon.socket`/`.service`, which start it with
    /// the secrets component) and whether the user masked them.
    func gnomeKeyringUnits() -> DoctorFinding {
        let names = ["gnome-keyring-daemon.socket", "gnome-keyring-daemon.service"]
        let installed = names.filter { name in
            paths.systemUnitDirectories.contains { FileManager.default.fileExists(atPath: $0 + "/" + name) }
        }
        let live = installed.filter { !isMasked($0) }
        let summary =
            installed.isEmpty
            ? "gnome-keyring has no user units here"
            : live.isEmpty
                ? "gnome-keyring's user units are masked"
                : "gnome-keyring's user units can start it with its Secret Service: \(live.joined(separator: ", "))"
        return DoctorFinding(
            check: "gnome-keyring-units",
            status: live.isEmpty ? .ok : .action,
            summary: summary,
            next: live.isEmpty ? nil : "systemctl --user mask --now \(live.joined(separator: " "))",
            facts: [
                "installed": .array(installed.map(JSONValue.string)),
                "unmasked": .array(live.map(JSONValue.string)),
            ]
        )
    }

    /// gnome-keyring's keyrings (`$XDG_DATA_HOME/keyrings/*.keyring`), which `latchkey import --from
    /// gnome-keyring` brings over (idempotent: a second run adds nothing).
    func keyrings() -> DoctorFinding {
        let names =
            ((try? FileManager.default.contentsOfDirectory(atPath: paths.keyringDirectory)) ?? [])
            .filter { $0.hasSuffix(".keyring") }.sorted()
        guard !names.isEmpty else {
            return DoctorFinding(
                check: "keyrings",
                status: .ok,
                summary: "no gnome-keyring keyrings in \(paths.keyringDirectory)",
                facts: ["keyrings": .array([])]
            )
        }
        return DoctorFinding(
            check: "keyrings",
            status: .info,
            summary: "\(names.count) gnome-keyring keyring(s) in \(paths.keyringDirectory): "
                + "\(names.joined(separator: ", ")); import them unless done (a second import adds nothing)",
            next: "latchkey import --from gnome-keyring",
            facts: ["keyrings": .array(names.map { .string(paths.keyringDirectory + "/" + $0) })]
        )
    }
}
