import Foundation
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

extension InstallationSuites {
    /// scripts/install.sh into a temporary prefix with the statically linked `latchkey`, the installed binary run
    /// with the toolchain out of reach, and the uninstall (docs/install.md, "Install and uninstall").
    @Suite struct InstallTests {
        /// The files every install puts under the prefix (the PAM module besides when its source exists).
        static let installedFiles = [
            "bin/latchkey",
            "lib/systemd/user/latchkey-agent.service",
            "lib/systemd/user/latchkey-agent.socket",
            "share/latchkey/dbus-1/services/org.freedesktop.secrets.service",
            "share/latchkey/systemd/user/latchkey-agent.service.d/secret-service.conf",
            "share/latchkey/install-manifest",
            "share/latchkey/uninstall.sh",
            "share/doc/latchkey/README.md",
            "share/doc/latchkey/docs/install.md",
        ]

        @Test func theInstalledBinaryRunsWithoutTheToolchainAndTheUninstallLeavesThePrefixAsItWas() throws {
            let binary = try Installation.staticLatchkey()
            let bash = try Peer.require("bash", package: "bash")
            _ = try Peer.require("sha256sum", package: "coreutils")
            _ = try Peer.require("strip", package: "binutils")
            let directory = try Installation.temporaryDirectory("latchkey-install")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            // A prefix that already holds another program's files: the uninstall must leave them, and the
            // directories the install did not create, in place.
            let prefix = directory + "/prefix"
            try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: prefix + "/share/doc", withIntermediateDirectories: true)
            try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: prefix + "/bin/other-tool"))
            let before = try Installation.tree(prefix)

            let installed = try CLIRunner.run(
                bash,
                [Installation.repository + "/scripts/install.sh", "--prefix", prefix, "--binary", binary],
                environment: ProcessInfo.processInfo.environment
            )
            try #require(installed.status == 0, "install.sh: \(installed.stdout) \(installed.stderr)")
            var expected = Self.installedFiles
            let pamSource = Installation.repository + "/contrib/pam/pam_latchkey.c"
            if FileManager.default.fileExists(atPath: pamSource) { expected.append("lib/security/pam_latchkey.so") }
            for file in expected {
                #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "not installed: \(file)")
                #expect(installed.stdout.contains(prefix + "/" + file), "not named in the output: \(file)")
            }
            #expect(installed.stdout.contains("Next steps"), "\(installed.stdout)")
            #expect(installed.stdout.contains("systemctl --user enable --now latchkey-agent.socket"))

            // The installed binary answers with nothing of the toolchain reachable, and links none of it.
            let installedBinary = prefix + "/bin/latchkey"
            let version = try Installation.versionWithoutToolchain(installedBinary)
            #expect(version.status == 0, "\(version.stderr)")
            #expect(version.stdout == "latchkey \(try Installation.version())\n")
            let libraries = try Installation.linkedLibraries(installedBinary)
            let toolchain = try Installation.toolchainRoot()
            #expect(!libraries.isEmpty)
            #expect(Installation.toolchainLibraries(in: libraries, toolchain: toolchain).isEmpty, "\(libraries)")

            // The units and the Secret Service files name the installed path; no placeholder is left.
            let execStart = installedBinary + " agent --foreground --idle-lock 900"
            #expect(
                try Installation.value(of: "ExecStart", inFile: prefix + "/lib/systemd/user/latchkey-agent.service")
                    == execStart
            )
            let dropIn = prefix + "/share/latchkey/systemd/user/latchkey-agent.service.d/secret-service.conf"
            #expect(try Installation.value(of: "ExecStart", inFile: dropIn) == execStart + " --secret-service")
            let dbusService = prefix + "/share/latchkey/dbus-1/services/org.freedesktop.secrets.service"
            #expect(try Installation.value(of: "Name", inFile: dbusService) == "org.freedesktop.secrets")
            #expect(
                try Installation.value(of: "Exec", inFile: dbusService)
                    == installedBinary + " agent --foreground --secret-service"
            )
            for file in expected where file.hasPrefix("lib/systemd/") || file.hasPrefix("share/latchkey/") {
                let text = try String(contentsOfFile: prefix + "/" + file, encoding: .utf8)
                #expect(!text.contains("@BINDIR@"), "a placeholder is left in \(file)")
            }
            // Nothing lands where a bus would read it: installing claims org.freedesktop.secrets for nobody.
            #expect(!FileManager.default.fileExists(atPath: prefix + "/share/dbus-1"))

            // The installed binary does the main job, with a keychain in a home outside the prefix.
            let home = directory + "/home"
            let environment = [
                "PATH": "/usr/bin:/bin", "HOME": home, "XDG_DATA_HOME": home + "/data",
                "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config", "LATCHKEY_AGENT": "off",
            ]
            let created = try CLIRunner.run(
                installedBinary,
                ["create-keychain", "--kdf-cost", "testing", "--passphrase-stdin"],
                environment: environment,
                input: Data("install test passphrase".utf8)
            )
            #expect(created.status == 0, "\(created.stderr)")
            let keychain = home + "/data/latchkey/login.keychain-db"
            #expect(FileManager.default.fileExists(atPath: keychain))

            // The uninstall removes what the install put there, and only that.
            let uninstalled = try CLIRunner.run(
                bash,
                [prefix + "/share/latchkey/uninstall.sh", "--prefix", prefix],
                environment: ProcessInfo.processInfo.environment
            )
            #expect(uninstalled.status == 0, "uninstall: \(uninstalled.stdout) \(uninstalled.stderr)")
            #expect(uninstalled.stderr.isEmpty, "nothing kept: \(uninstalled.stderr)")
            #expect(try Installation.tree(prefix) == before)
            #expect(FileManager.default.fileExists(atPath: keychain), "the uninstall never touches a keychain")
        }

        @Test func theInstallRefusesToOverwriteAFileItDidNotPutThere() throws {
            let binary = try Installation.staticLatchkey()
            let bash = try Peer.require("bash", package: "bash")
            let directory = try Installation.temporaryDirectory("latchkey-install")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let prefix = directory + "/prefix"
            try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
            try Data("#!/bin/sh\necho mine\n".utf8).write(to: URL(fileURLWithPath: prefix + "/bin/latchkey"))
            let before = try Installation.tree(prefix)
            let refused = try CLIRunner.run(
                bash,
                [Installation.repository + "/scripts/install.sh", "--prefix", prefix, "--binary", binary],
                environment: ProcessInfo.processInfo.environment
            )
            #expect(refused.status == 1)
            #expect(
                refused.stderr.contains("\(prefix)/bin/latchkey exists and was not installed by this script"),
                "\(refused.stderr)"
            )
            #expect(refused.stderr.contains("--force"), "the next step: \(refused.stderr)")
            #expect(try Installation.tree(prefix) == before, "nothing installed")
            #expect(try String(contentsOfFile: prefix + "/bin/latchkey", encoding: .utf8) == "#!/bin/sh\necho mine\n")

            let notInstalled = try CLIRunner.run(
                bash,
                [Installation.repository + "/scripts/install.sh", "--uninstall", "--prefix", prefix],
                environment: ProcessInfo.processInfo.environment
            )
            #expect(notInstalled.status == 1)
            #expect(notInstalled.stderr.contains("no install by scripts/install.sh under \(prefix)"))
            #expect(try Installation.tree(prefix) == before)
        }
    }
}
