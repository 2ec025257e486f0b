import Foundation
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// `latchkey doctor` on a temporary home, XDG directories and root (`--root`), with and without the units,
/// D-Bus files and PAM lines, and with gnome-keyring or Latchkey owning org.freedesktop.secrets on a private bus.
@Suite(.serialized)
struct DoctorTests {
    /// A temporary home with its XDG directories and a root for /etc and /usr, and files written into them.
    struct Layout {
        let directory: String
        var home: String { directory + "/home" }
        var configHome: String { directory + "/config" }
        var dataHome: String { directory + "/data" }
        var dataDirectory: String { directory + "/share" }
        var configDirectory: String { directory + "/xdg" }
        var root: String { directory + "/root" }

        /// The doctor's environment: these directories, on top of `base`.
        func environment(_ base: [String: String]) -> [String: String] {
            var environment = base
            environment["HOME"] = home
            environment["XDG_CONFIG_HOME"] = configHome
            environment["XDG_DATA_HOME"] = dataHome
            environment["XDG_DATA_DIRS"] = dataDirectory
            environment["XDG_CONFIG_DIRS"] = configDirectory
            return environment
        }

        /// Writes `text` at `path` (under the layout), creating directories.
        func write(_ path: String, _ text: String) throws {
            let url = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(text.utf8).write(to: url)
        }

        /// Makes a symbolic link at `path` to `destination`.
        func link(_ path: String, to destination: String) throws {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: destination)
        }

        /// Everything a user who switched has: units (enabled), drop-in, Latchkey's D-Bus file first,
        /// gnome-keyring's autostart entry hidden and its units masked, PAM lines swapped.
        func installEverything() throws {
            let units = configHome + "/systemd/user"
            try write(units + "/latchkey-agent.socket", "[Socket]\nListenStream=%t/latchkey/agent.sock\n")
            try write(units + "/latchkey-agent.service", "[Service]\nExecStart=/usr/bin/latchkey agent\n")
            try write(units + "/latchkey-agent.service.d/secret-service.conf", "[Service]\nExecStart=\n")
            try link(units + "/sockets.target.wants/latchkey-agent.socket", to: units + "/latchkey-agent.socket")
            try write(
                dataDirectory + "/latchkey/dbus-1/services/org.freedesktop.secrets.service",
                Self.busFile(exec: "/usr/bin/latchkey agent --foreground --secret-service")
            )
            try link(
                dataHome + "/dbus-1/services/org.freedesktop.secrets.service",
                to: dataDirectory + "/latchkey/dbus-1/services/org.freedesktop.secrets.service"
            )
            try write(
                dataDirectory + "/dbus-1/services/org.freedesktop.secrets.service",
                Self.busFile(exec: "/usr/bin/gnome-keyring-daemon --start --foreground --components=secrets")
            )
            try write(
                configDirectory + "/autostart/gnome-keyring-secrets.desktop",
                "[Desktop Entry]\nExec=/usr/bin/gnome-keyring-daemon --start --components=secrets\n"
            )
            try write(configHome + "/autostart/gnome-keyring-secrets.desktop", "[Desktop Entry]\nHidden=true\n")
            for unit in ["gnome-keyring-daemon.socket", "gnome-keyring-daemon.service"] {
                try write(root + "/usr/lib/systemd/user/" + unit, "[Unit]\n")
                try link(units + "/" + unit, to: "/dev/null")
            }
            try write(root + "/etc/pam.d/common-auth", "auth\toptional\tpam_latchkey.so\n")
            try write(root + "/etc/pam.d/common-session", "session optional pam_latchkey.so\n")
            try write(root + "/etc/pam.d/common-password", "-password optional pam_latchkey.so\n")
        }

        static func busFile(exec: String) -> String {
            "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=\(exec)\n"
        }
    }

    /// A doctor's run: exit status, JSON and human output.
    struct Report {
        var status: Int32
        var json: [String: Any]
        var text: String

        /// The finding named `check`.
        func finding(_ check: String) -> [String: Any] {
            let findings = json["findings"] as? [[String: Any]] ?? []
            return findings.first { $0["check"] as? String == check } ?? [:]
        }

        /// The status of the finding named `check`.
        func status(_ check: String) -> String? { finding(check)["status"] as? String }
    }

    static func doctor(_ layout: Layout, environment: [String: String]) throws -> Report {
        let environment = layout.environment(environment)
        let arguments = ["doctor", "--root", layout.root]
        let json = try CLIRunner.latchkey(arguments + ["--json"], environment: environment)
        let text = try CLIRunner.latchkey(arguments, environment: environment)
        #expect(json.status == text.status)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        return Report(status: json.status, json: object ?? [:], text: text.stdout)
    }

    @Test func anEmptyHomeNeedsEveryStepAndSaysTheCommands() throws {
        let keychain = TemporaryKeychain()
        let layout = Layout(directory: keychain.directory)
        var environment = CLIRunner.environment(keychain)
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["XDG_RUNTIME_DIR"] = keychain.directory + "/run"
        let report = try Self.doctor(layout, environment: environment)
        #expect(report.status == 1)
        #expect(report.json["ok"] as? Bool == false)
        for check in ["secret-service-owner", "agent", "units", "secret-service-drop-in", "dbus-service-files"] {
            #expect(report.status(check) == "action", "\(check): \(report.finding(check))")
        }
        #expect(report.status("pam") == "action")
        #expect(report.status("gnome-keyring-autostart") == "ok")
        #expect(report.status("keyrings") == "ok")
        #expect(report.text.contains("action  units: latchkey-agent.socket and latchkey-agent.service not installed"))
        #expect(
            report.text.contains(
                "next: echo 'auth optional pam_latchkey.so' | sudo tee -a \(layout.root)/etc/pam.d/common-auth"
            )
        )
        #expect(report.text.contains("finding(s) need action"))
    }

    @Test func everythingInPlaceWithLatchkeyOwningTheNameExitsZero() throws {
        let harness = try SecretServiceHarness()
        let layout = Layout(directory: harness.keychain.directory + "/doctor")
        try layout.installEverything()
        let report = try Self.doctor(layout, environment: harness.environment)
        #expect(report.status == 0, "\(report.text)")
        #expect(report.json["ok"] as? Bool == true)
        let owner = report.finding("secret-service-owner")["owner"] as? [String: Any] ?? [:]
        #expect(owner["provider"] as? String == "latchkey")
        #expect(owner["pid"] as? Int == Int(harness.agent.pid))
        #expect(report.finding("agent")["lockState"] as? String == "unlocked")
        #expect(
            report.finding("dbus-service-files")["winner"] as? String
                == layout.dataHome + "/dbus-1/services/org.freedesktop.secrets.service"
        )
        #expect(report.text.contains("ok      secret-service-owner: Latchkey: latchkey (pid \(harness.agent.pid)"))
        #expect(report.text.contains("everything is in place"))
    }

    @Test func gnomeKeyringOwningTheNameIsNamedWithTheNextStep() throws {
        let session = try TakeoverSession()
        let keyring = try session.startGnomeKeyring(unlocked: true)
        let layout = Layout(directory: session.keychain.directory + "/doctor")
        try layout.installEverything()
        let report = try Self.doctor(layout, environment: session.environment)
        #expect(report.status == 1)
        let finding = report.finding("secret-service-owner")
        let owner = finding["owner"] as? [String: Any] ?? [:]
        #expect(owner["provider"] as? String == "gnome-keyring")
        #expect(owner["pid"] as? Int == Int(keyring.pid))
        #expect(owner["executable"] as? String == "/usr/bin/gnome-keyring-daemon")
        let collections = owner["collections"] as? [[String: Any]] ?? []
        #expect(collections.contains { $0["name"] as? String == "login" && $0["locked"] as? Bool == false })
        #expect((finding["next"] as? String)?.contains("latchkey import --from gnome-keyring") == true)
        #expect(
            report.text.contains(
                "action  secret-service-owner: gnome-keyring: gnome-keyring-daemon (pid \(keyring.pid)"
            )
        )
        #expect(report.text.contains("collection login: unlocked"))
        #expect(report.status("agent") == "action")
    }

    @Test func twoServiceFilesInOneDirectoryAreAConflict() throws {
        let keychain = TemporaryKeychain()
        let layout = Layout(directory: keychain.directory)
        try layout.write(
            layout.dataHome + "/dbus-1/services/org.freedesktop.secrets.service",
            Layout.busFile(exec: "/usr/bin/latchkey agent --foreground --secret-service")
        )
        try layout.write(
            layout.dataHome + "/dbus-1/services/org.keepassxc.KeePassXC.service",
            Layout.busFile(exec: "/usr/bin/keepassxc")
        )
        let report = try Self.doctor(layout, environment: CLIRunner.environment(keychain))
        let finding = report.finding("dbus-service-files")
        #expect(finding["status"] as? String == "action")
        #expect(finding["winner"] is NSNull)
        #expect((finding["details"] as? [String])?.contains { $0.contains("keepassxc #6274") } == true)
        #expect(finding["next"] as? String == "rm \(layout.dataHome)/dbus-1/services/org.keepassxc.KeePassXC.service")
    }

    @Test func theFirstDirectoryWinsAndTheShippedFileIsOffered() throws {
        let keychain = TemporaryKeychain()
        let layout = Layout(directory: keychain.directory)
        let shipped = layout.dataDirectory + "/latchkey/dbus-1/services/org.freedesktop.secrets.service"
        try layout.write(shipped, Layout.busFile(exec: "/usr/bin/latchkey agent --foreground --secret-service"))
        try layout.write(
            layout.dataDirectory + "/dbus-1/services/org.freedesktop.secrets.service",
            Layout.busFile(exec: "/usr/bin/gnome-keyring-daemon --start --foreground --components=secrets")
        )
        let before = try Self.doctor(layout, environment: CLIRunner.environment(keychain)).finding("dbus-service-files")
        #expect(before["status"] as? String == "action")
        #expect(before["shipped"] as? String == shipped)
        let next = try #require(before["next"] as? String)
        #expect(next.hasPrefix("mkdir -p \(layout.dataHome)/dbus-1/services && ln -sf \(shipped) "))
        try layout.link(layout.dataHome + "/dbus-1/services/org.freedesktop.secrets.service", to: shipped)
        let after = try Self.doctor(layout, environment: CLIRunner.environment(keychain)).finding("dbus-service-files")
        #expect(after["status"] as? String == "ok", "\(after)")
    }

    @Test func gnomeKeyringsPamLinesAreSwappedBySed() throws {
        let keychain = TemporaryKeychain()
        let layout = Layout(directory: keychain.directory)
        try layout.write(
            layout.root + "/etc/pam.d/gdm-password",
            "auth optional pam_gnome_keyring.so\n"
                + "session optional pam_gnome_keyring.so auto_start\n"
        )
        try layout.write(layout.root + "/etc/pam.d/common-password", "password optional pam_gnome_keyring.so\n")
        try layout.write(layout.dataHome + "/keyrings/login.keyring", "")
        let report = try Self.doctor(layout, environment: CLIRunner.environment(keychain))
        let pam = report.finding("pam")
        #expect(pam["status"] as? String == "action")
        #expect(
            pam["next"] as? String
                == "sudo sed -i -E 's|pam_gnome_keyring\\.so.*$|pam_latchkey.so|' "
                + "\(layout.root)/etc/pam.d/common-password \(layout.root)/etc/pam.d/gdm-password"
        )
        #expect(report.finding("keyrings")["status"] as? String == "info")
        #expect(report.finding("keyrings")["next"] as? String == "latchkey import --from gnome-keyring")
    }
}
