import Foundation
import Latchkey
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

extension InstallationSuites {
    /// `pam_latchkey.so` in a real PAM stack (Debian's pamtester, pam_unix, a test user), with the built `latchkey`
    /// as the program it runs: the login password unlocks the user's agent, creating the keychain at the first
    /// login, and a password change changes the keychain's passphrase (docs/install.md, "Unlock at login (PAM)").
    /// Serialized: every test logs in as the one test user; nested in `InstallationSuites`, so never beside the
    /// package test, which also adds a user and changes the system.
    @Suite(.serialized)
    struct PamTests {
        @Test func theFirstLoginCreatesTheKeychainAndLeavesTheUsersAgentUnlocked() throws {
            let password = "first login password 7"
            let login = try PamHarness(password: password)
            #expect(!FileManager.default.fileExists(atPath: login.keychainPath))
            let opened = try login.pamtester(["authenticate", "open_session"], input: password + "\n")
            #expect(opened.status == 0, "\(opened.stdout) \(opened.stderr)")
            #expect(FileManager.default.fileExists(atPath: login.keychainPath), "the first login creates the keychain")

            // The agent the module started runs as the user, on the session's socket, unlocked.
            let info = try login.keychainInfo()
            #expect(info["lockState"] as? String == "unlocked", "\(info)")
            let agent = try #require(info["agent"] as? [String: Any])
            #expect(agent["socket"] as? String == login.socketPath)
            let pid = try #require(agent["pid"] as? Int)
            #expect(login.agentProcesses() == [pid_t(pid)], "one agent, the user's")

            let added = try login.asUser(["add-generic-password", "-s", "pam", "-a", "user", "-w", "stored value"])
            #expect(added.status == 0, "\(added.stderr)")
            let found = try login.asUser(["find-generic-password", "-s", "pam", "-a", "user", "-w"])
            #expect(found.stdout == "stored value\n", "\(found.stderr)")

            // Its passphrase is the login password.
            #expect(try login.asUser(["lock"]).status == 0)
            let wrong = try login.asUser(["unlock", "--passphrase-stdin"], input: "not the login password")
            #expect(wrong.status == 1 && wrong.stderr.contains("-25293"), "\(wrong.stderr)")
            let right = try login.asUser(["unlock", "--passphrase-stdin"], input: password)
            #expect(right.status == 0, "\(right.stderr)")

            // The password is in no argument or environment of the agent, and in no file of the user's.
            for process in login.agentProcesses() {
                for file in ["cmdline", "environ"] {
                    let contents = try #require(FileManager.default.contents(atPath: "/proc/\(process)/\(file)"))
                    #expect(
                        contents.range(of: Data(password.utf8)) == nil,
                        "the password is in /proc/\(process)/\(file)"
                    )
                }
            }
            #expect(PamHarness.files(under: login.home, containing: password) == [])
            #expect(PamHarness.files(under: login.runtime, containing: password) == [])
            login.stopAgents()
            #expect(login.agentProcesses().isEmpty)
        }

        @Test func aWrongPasswordAtTheFirstLoginCreatesNothing() throws {
            let login = try PamHarness(password: "the right password")
            let refused = try login.pamtester(["authenticate", "open_session"], input: "a wrong password\n")
            #expect(refused.status != 0, "pam_unix refuses: \(refused.stdout) \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: login.keychainPath))
            #expect(login.agentProcesses().isEmpty)
        }

        @Test func atAuthenticationOnlyTheLoginPasswordUnlocksARunningAgent() throws {
            let password = "screen unlock password"
            let login = try PamHarness(password: password)
            let opened = try login.pamtester(["authenticate", "open_session"], input: password + "\n")
            #expect(opened.status == 0, "\(opened.stdout) \(opened.stderr)")
            #expect(try login.asUser(["lock"]).status == 0)

            // The module runs after a failing pam_unix too (`required` goes on): the wrong password opens nothing.
            let refused = try login.pamtester(["authenticate"], input: "a mistyped password\n")
            #expect(refused.status != 0)
            #expect(try login.keychainInfo()["lockState"] as? String == "locked")

            // A screen unlock: authentication alone, with the agent running, unlocks it.
            let unlocked = try login.pamtester(["authenticate"], input: password + "\n")
            #expect(unlocked.status == 0, "\(unlocked.stdout) \(unlocked.stderr)")
            #expect(try login.keychainInfo()["lockState"] as? String == "unlocked")
            login.stopAgents()
        }

        @Test func aLoginWithoutAPasswordLeavesTheKeychainAlone() throws {
            // pam_permit stands for a fingerprint or an autologin: no PAM_AUTHTOK reaches the module.
            let login = try PamHarness(password: "unused", authStack: "auth required pam_permit.so")
            let opened = try login.pamtester(["authenticate", "open_session"], input: "")
            #expect(opened.status == 0, "\(opened.stdout) \(opened.stderr)")
            #expect(!FileManager.default.fileExists(atPath: login.keychainPath))
            #expect(login.agentProcesses().isEmpty, "nothing started: the first client's prompt unlocks")
        }

        @Test func aPasswordChangeChangesTheAgentsPassphraseOnlyWhenTheOldPasswordOpensIt() throws {
            let old = "old login password"
            let new = "new login password"
            let login = try PamHarness(password: old)
            let opened = try login.pamtester(["authenticate", "open_session"], input: old + "\n")
            #expect(opened.status == 0, "\(opened.stdout) \(opened.stderr)")
            #expect(try login.asUser(["lock"]).status == 0)

            // pam_unix asks root for the new password twice; the module then asks for the keychain's current one.
            let changed = try login.pamtester(["chauthtok"], input: "\(new)\n\(new)\n\(old)\n")
            #expect(changed.status == 0, "\(changed.stdout) \(changed.stderr)")
            #expect(try login.asUser(["lock"]).status == 0)
            let withOld = try login.asUser(["unlock", "--passphrase-stdin"], input: old)
            #expect(withOld.status == 1 && withOld.stderr.contains("-25293"), "the old password no longer unlocks")
            #expect(try login.asUser(["unlock", "--passphrase-stdin"], input: new).status == 0)

            // A current password that does not open the keychain changes nothing, and never fails the change.
            let third = "third login password"
            let refused = try login.pamtester(["chauthtok"], input: "\(third)\n\(third)\nnot the keychain's\n")
            #expect(refused.status == 0, "the system's password change goes through: \(refused.stderr)")
            #expect(
                (refused.stdout + refused.stderr).contains("was not changed"),
                "\(refused.stdout) \(refused.stderr)"
            )
            #expect(try login.asUser(["lock"]).status == 0)
            #expect(try login.asUser(["unlock", "--passphrase-stdin"], input: third).status == 1)
            #expect(try login.asUser(["unlock", "--passphrase-stdin"], input: new).status == 0)
            #expect(PamHarness.files(under: login.home, containing: new) == [])
            #expect(PamHarness.files(under: login.runtime, containing: new) == [])
            login.stopAgents()
        }

        @Test func aPasswordChangeWithoutAnAgentChangesTheKeychainFile() throws {
            let old = "old password, no agent"
            let new = "new password, no agent"
            let login = try PamHarness(password: old)
            let opened = try login.pamtester(["authenticate", "open_session"], input: old + "\n")
            #expect(opened.status == 0, "\(opened.stdout) \(opened.stderr)")
            login.stopAgents()
            #expect(!FileManager.default.fileExists(atPath: login.socketPath))

            let changed = try login.pamtester(["chauthtok"], input: "\(new)\n\(new)\n\(old)\n")
            #expect(changed.status == 0, "\(changed.stdout) \(changed.stderr)")
            #expect(login.agentProcesses().isEmpty, "changed in process: no agent was started")
            let inProcess = ["LATCHKEY_AGENT": "off"]
            let withOld = try login.asUser(
                ["show-keychain-info", "--passphrase-stdin"],
                input: old,
                environment: inProcess
            )
            #expect(withOld.status == 1 && withOld.stderr.contains("-25293"), "\(withOld.stdout) \(withOld.stderr)")
            let withNew = try login.asUser(
                ["show-keychain-info", "--passphrase-stdin"],
                input: new,
                environment: inProcess
            )
            #expect(withNew.status == 0 && withNew.stdout.contains("unlocked"), "\(withNew.stdout) \(withNew.stderr)")
        }

        @Test func theModuleRunsItsProgramAsTheUserWithACleanEnvironmentAndKillsItAtTheDeadline() throws {
            let password = "password for a stand-in"
            let login = try PamHarness(password: password)
            // A stand-in for `latchkey` that records how it was started, reads the password and never finishes.
            let observed = login.runtime + "/observed"
            let program = login.directory + "/stand-in"
            let script = """
                #!/bin/sh
                { echo "pid $$"; echo "uid $(id -u)"; echo "gid $(id -g)"; echo "groups $(id -G)"
                  for argument in "$@"; do echo "argument $argument"; done
                  tr '\\000' '\\n' < /proc/$$/environ | sed 's/^/environment /'
                  echo "input $(wc -c)"; } > \(observed)
                exec tail -f /dev/null
                """
            try script.write(toFile: program, atomically: true, encoding: .utf8)
            #expect(chmod(program, 0o755) == 0)
            try login.writeService(program: program, timeout: 1)

            let opened = try login.pamtester(["authenticate", "open_session"], input: password + "\n")
            #expect(opened.status == 0, "the login goes on: \(opened.stdout) \(opened.stderr)")
            let lines = try String(contentsOfFile: observed, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(lines.contains("uid \(login.uid)") && lines.contains("gid \(login.gid)"), "\(lines)")
            #expect(lines.contains("groups \(login.gid)"), "the user's groups only: \(lines)")
            #expect(lines.filter { $0.hasPrefix("argument ") } == ["argument pam-unlock"])
            let environment = Set(
                lines.filter { $0.hasPrefix("environment ") }.map { $0.dropFirst(12).prefix { $0 != "=" } }
            )
            #expect(environment == ["HOME", "USER", "LOGNAME", "PATH", "XDG_RUNTIME_DIR"], "\(lines)")
            #expect(lines.contains("input \(password.utf8.count)"), "the password alone on standard input: \(lines)")
            #expect(!lines.contains { $0.contains(password) })
            // Killed at the deadline, not left behind.
            let pid = try #require(lines.first { $0.hasPrefix("pid ") }.flatMap { pid_t($0.dropFirst(4)) })
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "the stand-in still runs")
        }

        /// Also measures the time from the start of a login (`pamtester authenticate open_session`) to the answer
        /// of a `secret-tool lookup` served by the agent that login started: printed, never asserted.
        @Test func afterALoginSecretToolIsAnsweredByTheUnlockedAgentsSecretService() throws {
            let password = "secret service login"
            let login = try PamHarness(password: password)
            let daemon = try Peer.require("dbus-daemon", package: "dbus-daemon")
            let secretTool = try Peer.require("secret-tool", package: "libsecret-tools")
            // The user's session bus where systemd's would be, $XDG_RUNTIME_DIR/bus: the agent the login starts
            // finds it there.
            let address = "unix:path=\(login.runtime)/bus"
            let bus = try login.spawnAsUser(
                ["--session", "--address=\(address)", "--nofork", "--print-address=1"],
                program: daemon
            )
            defer { bus.kill(SIGKILL) }
            try #require(bus.waitForLines(1, timeout: 60), "dbus-daemon did not start: \(bus.waitForExit(timeout: 5))")
            let onBus = ["DBUS_SESSION_BUS_ADDRESS": address]

            let first = try login.pamtester(["authenticate", "open_session"], input: password + "\n")
            #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
            let stored = try login.asUser(
                ["store", "--label", "PAM measure", "service", "pam-measure", "account", "user"],
                program: secretTool,
                input: "measured secret",
                environment: onBus
            )
            #expect(stored.status == 0, "\(stored.stderr)")
            login.stopAgents()  // a logout

            let started = Date()
            let second = try login.pamtester(["authenticate", "open_session"], input: password + "\n")
            let sessionOpen = Date()
            let lookup = try login.asUser(
                ["lookup", "service", "pam-measure", "account", "user"],
                program: secretTool,
                environment: onBus
            )
            let answered = Date()
            #expect(second.status == 0, "\(second.stdout) \(second.stderr)")
            #expect(lookup.stdout == "measured secret", "\(lookup.stderr)")
            print(
                "PAM login to the first secret-tool lookup: \(Self.milliseconds(answered.timeIntervalSince(started))) ms "
                    + "(authenticate + open_session \(Self.milliseconds(sessionOpen.timeIntervalSince(started))) ms, "
                    + "lookup \(Self.milliseconds(answered.timeIntervalSince(sessionOpen))) ms)"
            )
            login.stopAgents()
        }

        private static func milliseconds(_ interval: TimeInterval) -> String {
            String(format: "%.0f", interval * 1000)
        }
    }
}
