import Foundation
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

extension InstallationSuites {
    /// scripts/package-deb.sh: the package built with the static `latchkey`, installed with `dpkg -i`, its agent
    /// started for an unprivileged user by socket activation as its user unit does, then purged without
    /// leftovers (docs/install.md, "Install and uninstall"). Runs as root (CI does).
    @Suite struct DebianPackageTests {
        /// The unprivileged user the agent runs as; created by the test when missing, removed again then.
        static let user = "latchkey-deb-test"

        @Test func thePackageInstallsServesAUserBySocketActivationAndPurgesWithoutLeftovers() throws {
            try #require(getuid() == 0, "installing a Debian package needs root (CI runs the tests as root)")
            let dpkg = try Peer.require("dpkg", package: "dpkg")
            let dpkgDeb = try Peer.require("dpkg-deb", package: "dpkg")
            _ = try Peer.require("dpkg-shlibdeps", package: "dpkg-dev")
            let activator = try Peer.require("systemd-socket-activate", package: "systemd")
            let setpriv = try Peer.require("setpriv", package: "util-linux")
            let python = try Peer.require("python3", package: "python3")
            let gnomeKeyring = try Peer.require("/usr/bin/gnome-keyring-daemon", package: "gnome-keyring")
            let gnomeKeyringService = "/usr/share/dbus-1/services/org.freedesktop.secrets.service"
            let bash = try Peer.require("bash", package: "bash")
            let root = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
            let status = try CLIRunner.run(dpkg, ["-s", "latchkey"], environment: root)
            try #require(
                !status.stdout.contains("Status: install ok installed"),
                Comment(
                    rawValue: "the Debian package latchkey is installed on this machine and this test would remove "
                        + "it: remove it first (apt purge latchkey)"
                )
            )

            // Build the package.
            let binary = try Installation.staticLatchkey()
            let directory = try Installation.temporaryDirectory("latchkey-deb")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let built = try CLIRunner.run(
                bash,
                [Installation.repository + "/scripts/package-deb.sh", "--binary", binary, "--output", directory],
                // dpkg-deb's own variables: gzip -1 instead of xz packs the 120 MB debug binary in seconds.
                environment: ProcessInfo.processInfo.environment.merging([
                    "DPKG_DEB_COMPRESSOR_TYPE": "gzip", "DPKG_DEB_COMPRESSOR_LEVEL": "1",
                ]) { _, new in new },
                timeout: 600
            )
            try #require(built.status == 0, "package-deb.sh: \(built.stdout) \(built.stderr)")
            let version = try Installation.version()
            let architecture = try CLIRunner.run(dpkg, ["--print-architecture"], environment: root).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let package = directory + "/latchkey_\(version)_\(architecture).deb"
            #expect(built.stdout.hasPrefix(package + "\n"), "\(built.stdout)")
            let fields = try CLIRunner.run(dpkgDeb, ["--field", package], environment: root).stdout
            #expect(fields.contains("Package: latchkey\n"), "\(fields)")
            #expect(fields.contains("Version: \(version)\n"), "\(fields)")
            let depends = fields.split(separator: "\n").first { $0.hasPrefix("Depends: ") }.map(String.init) ?? ""
            for dependency in ["libc6", "libsystemd0", "libssl3"] {
                #expect(depends.contains(dependency), "\(dependency) in \(depends)")
            }
            #expect(fields.contains("Recommends: pinentry-curses | pinentry\n"), "\(fields)")
            let contents = try CLIRunner.run(dpkgDeb, ["--contents", package], environment: root)
            let paths = contents.stdout.split(separator: "\n").compactMap { line -> String? in
                guard let dot = line.range(of: " ./") else { return nil }
                let path = "/" + line[dot.upperBound...]
                return path == "/" ? nil : String(path.hasSuffix("/") ? path.dropLast() : path[...])
            }
            for file in [
                "/usr/bin/latchkey", "/usr/lib/systemd/user/latchkey-agent.service",
                "/usr/lib/systemd/user/latchkey-agent.socket",
                "/usr/share/latchkey/dbus-1/services/org.freedesktop.secrets.service",
                "/usr/share/doc/latchkey/docs/install.md",
            ] {
                #expect(paths.contains(file), "\(file) in the package: \(paths)")
            }
            // It claims org.freedesktop.secrets for nobody, so it needs no relation with gnome-keyring.
            #expect(!paths.contains { $0.hasPrefix("/usr/share/dbus-1") }, "\(paths)")
            #expect(!paths.contains { $0.hasSuffix("install-manifest") }, "dpkg tracks the files, not a manifest")
            let existedBefore = Dictionary(uniqueKeysWithValues: paths.map { ($0, Self.exists($0)) })

            // Install it.
            let installed = try CLIRunner.run(dpkg, ["-i", package], environment: root, timeout: 300)
            var purged = false
            defer { if !purged { _ = try? CLIRunner.run(dpkg, ["--purge", "latchkey"], environment: root) } }
            try #require(installed.status == 0, "dpkg -i: \(installed.stdout) \(installed.stderr)")
            for path in paths { #expect(Self.exists(path), "installed: \(path)") }
            let version1 = try Installation.versionWithoutToolchain("/usr/bin/latchkey")
            #expect(version1.stdout == "latchkey \(version)\n", "\(version1.stderr)")
            // Beside gnome-keyring, whose activation file stays the only claim on org.freedesktop.secrets: no file
            // of a bus's directory names Latchkey.
            #expect(
                try Installation.value(of: "Exec", inFile: gnomeKeyringService)?.hasPrefix(gnomeKeyring) == true,
                "gnome-keyring keeps \(gnomeKeyringService)"
            )
            for services in ["/usr/share/dbus-1/services", "/usr/local/share/dbus-1/services"] {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: services)) ?? [] {
                    let text = (try? String(contentsOfFile: services + "/" + name, encoding: .utf8)) ?? ""
                    #expect(!text.contains("latchkey"), "\(services)/\(name) names latchkey")
                }
            }
            // What `systemctl --global enable` makes goes with the purge.
            let systemctl = try Peer.require("systemctl", package: "systemd")
            let wants = "/etc/systemd/user/sockets.target.wants"
            let wantsExisted = Self.exists(wants)
            let enabled = try CLIRunner.run(
                systemctl,
                ["--global", "enable", "latchkey-agent.socket"],
                environment: root
            )
            #expect(enabled.status == 0, "systemctl --global enable: \(enabled.stderr)")
            #expect(Self.exists(wants + "/latchkey-agent.socket"), "\(enabled.stderr)")
            let libraries = try Installation.linkedLibraries("/usr/bin/latchkey")
            let toolchain = try Installation.toolchainRoot()
            #expect(Installation.toolchainLibraries(in: libraries, toolchain: toolchain).isEmpty, "\(libraries)")

            // The agent of an unprivileged user, started by socket activation with the installed unit's command.
            let unit = "/usr/lib/systemd/user/latchkey-agent.service"
            let execStart = try #require(try Installation.value(of: "ExecStart", inFile: unit))
            #expect(execStart.hasPrefix("/usr/bin/latchkey agent --foreground"), "\(execStart)")
            let listen = try #require(
                try Installation.value(of: "ListenStream", inFile: "/usr/lib/systemd/user/latchkey-agent.socket")
            )
            let (uid, gid, createdUser) = try Self.testUser(environment: root)
            defer {
                if createdUser { _ = try? CLIRunner.run("/usr/sbin/userdel", [Self.user], environment: root) }
            }
            let home = directory + "/user"
            let runtime = home + "/run"
            for path in [home, runtime, runtime + "/latchkey"] {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
                #expect(chmod(path, 0o700) == 0 && chown(path, uid, gid) == 0)
            }
            #expect(chmod(directory, 0o755) == 0, "the user reaches its directory")
            let socket = listen.replacingOccurrences(of: "%t", with: runtime)
            let environment = [
                "PATH": "/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": runtime, "XDG_DATA_HOME": home + "/data",
                "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
            ]
            let asUser = ["--reuid=\(uid)", "--regid=\(gid)", "--init-groups"]
            let passphrase = "deb test passphrase"
            let created = try CLIRunner.run(
                setpriv,
                asUser + ["/usr/bin/latchkey", "create-keychain", "--kdf-cost", "testing", "--passphrase-stdin"],
                environment: environment.merging(["LATCHKEY_AGENT": "off"]) { _, new in new },
                input: Data(passphrase.utf8)
            )
            try #require(created.status == 0, "create-keychain as \(Self.user): \(created.stderr)")

            // As AgentHarness does: a Python parent keeps the descriptors systemd-socket-activate closes and
            // names its child, which becomes the agent on the first connection.
            let events = try DirectoryEvents(directory: runtime + "/latchkey")
            let script =
                "import subprocess, sys; p = subprocess.Popen(sys.argv[1:]); print(p.pid, flush=True); "
                + "sys.exit(p.wait())"
            let passed = environment.keys.sorted().flatMap { ["-E", $0] }
            let agent = try BuiltExecutable.spawn(
                ["-c", script, setpriv] + asUser + [activator, "-l", socket] + passed
                    + execStart.split(separator: " ").map(String.init),
                environment: environment,
                executable: python
            )
            defer { agent.kill(SIGKILL) }
            try #require(agent.waitForLines(1, timeout: 60), "the Python parent did not name its child")
            let activated = try #require(agent.stdoutLines.first.flatMap { Int32($0) })
            var agentStopped = false
            defer { if !agentStopped { kill(activated, SIGKILL) } }
            try #require(
                events.wait(for: 1, whileRunning: agent.pid, timeout: 60) == .reached,
                "systemd-socket-activate made no socket"
            )
            #expect(agent.stdoutLines.count == 1, "no agent runs before the first connection")

            let client = environment.merging(["LATCHKEY_AGENT": "required"]) { _, new in new }
            let info = try CLIRunner.run(
                setpriv,
                asUser + ["/usr/bin/latchkey", "show-keychain-info", "--json"],
                environment: client
            )
            #expect(info.status == 0, "show-keychain-info as \(Self.user): \(info.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: info.stdoutData) as? [String: Any])
            #expect(object["agent"] as? [String: Any] != nil, "served by the agent: \(info.stdout)")
            #expect(agent.waitForLines(2, timeout: 60))
            #expect(agent.stdoutLines.last == "ready \(socket)")
            let unlocked = try CLIRunner.run(
                setpriv,
                asUser + ["/usr/bin/latchkey", "unlock", "--passphrase-stdin"],
                environment: client,
                input: Data(passphrase.utf8)
            )
            #expect(unlocked.status == 0, "\(unlocked.stderr)")
            let added = try CLIRunner.run(
                setpriv,
                asUser + ["/usr/bin/latchkey", "add-generic-password", "-s", "svc", "-a", "deb", "-w", "s3cret"],
                environment: client
            )
            #expect(added.status == 0, "\(added.stderr)")
            let found = try CLIRunner.run(
                setpriv,
                asUser + ["/usr/bin/latchkey", "find-generic-password", "-s", "svc", "-a", "deb", "-w"],
                environment: client
            )
            #expect(found.stdout == "s3cret\n", "\(found.stderr)")
            let locked = try CLIRunner.run(setpriv, asUser + ["/usr/bin/latchkey", "lock"], environment: client)
            #expect(locked.status == 0, "\(locked.stderr)")
            kill(activated, SIGTERM)
            let stopped = agent.waitForExit(timeout: 60)
            agentStopped = !stopped.timedOut
            #expect(stopped.status == 0 && stopped.signal == nil, "\(stopped.stderr)")

            // Purge: every path of the package is as it was before the install, the keychain stays.
            let purge = try CLIRunner.run(dpkg, ["--purge", "latchkey"], environment: root, timeout: 300)
            purged = purge.status == 0
            #expect(purge.status == 0, "dpkg --purge: \(purge.stdout) \(purge.stderr)")
            #expect(!purge.stderr.contains("warning"), "a clean purge: \(purge.stderr)")
            for path in paths {
                #expect(Self.exists(path) == existedBefore[path], "after the purge: \(path)")
            }
            #expect(!Self.exists(wants + "/latchkey-agent.socket"), "the global enablement went with the purge")
            #expect(Self.exists(wants) == wantsExisted, "\(wants) as it was")
            let state = try CLIRunner.run(dpkg, ["-s", "latchkey"], environment: root)
            #expect(!state.stdout.contains("Status:"), "dpkg forgot the package: \(state.stdout)")
            #expect(!Self.exists("/var/lib/dpkg/info/latchkey.list"))
            #expect(!Self.exists("/var/lib/dpkg/info/latchkey.postrm"))
            #expect(Self.exists(home + "/data/latchkey/login.keychain-db"), "a purge never touches a keychain")
        }

        /// Whether `path` exists (a dangling link counts).
        static func exists(_ path: String) -> Bool {
            var status = stat()
            return lstat(path, &status) == 0
        }

        /// The test user's uid and gid, creating it (a system user without a home or shell) when missing.
        static func testUser(environment: [String: String]) throws -> (uid_t, gid_t, created: Bool) {
            if let entry = getpwnam(user) { return (entry.pointee.pw_uid, entry.pointee.pw_gid, false) }
            let useradd = try Peer.require("useradd", package: "passwd")
            let added = try CLIRunner.run(
                useradd,
                ["--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent"]
                    + ["--shell", "/usr/sbin/nologin", user],
                environment: environment
            )
            try #require(added.status == 0, "useradd \(user): \(added.stderr)")
            let entry = try #require(getpwnam(user), "\(user) was added but getpwnam does not find it")
            return (entry.pointee.pw_uid, entry.pointee.pw_gid, true)
        }
    }
}
