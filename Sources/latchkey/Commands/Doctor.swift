import ArgumentParser
import Foundation

/// `doctor`: says whether Latchkey is the session's keychain and, for each thing not in place, the command
/// that puts it there.
struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check that Latchkey is the session's keychain, and say the next step for what is not in place.",
        discussion: """
            Checks, in the order of the takeover steps (docs/install.md, "Taking over org.freedesktop.secrets \
            safely"): who owns org.freedesktop.secrets on the session bus now (its unique name, pid and \
            executable: Latchkey, gnome-keyring, KeePassXC, ... or nobody), whether the agent answers and its \
            lock state, the agent's systemd user units (installed in ~/.config/systemd/user, /etc/systemd/user, \
            /usr/local/lib/systemd/user or /usr/lib/systemd/user, and enabled) and the --secret-service \
            drop-in, every D-Bus service file that claims org.freedesktop.secrets in the bus's search path \
            ($XDG_DATA_HOME/dbus-1/services, then each of $XDG_DATA_DIRS; the first directory wins, two files \
            in one directory are a conflict), gnome-keyring's autostart entry and user units, the PAM lines \
            (pam_latchkey.so in the auth, session and password stacks of /etc/pam.d, no pam_gnome_keyring.so) \
            and gnome-keyring's keyrings in $XDG_DATA_HOME/keyrings. Each finding is ok, action (with the \
            exact next command) or info. Exit status: 0 when no finding needs action, 1 otherwise. Paths come \
            from HOME and XDG_*; --root reads the system's files (/etc, /usr) under another directory.
            """
    )

    @Flag(name: .customLong("json"), help: "Print one JSON object: ok, and every finding with its facts.")
    var json = false
    @Option(
        name: .customLong("root"),
        help: ArgumentHelp("Read /etc and /usr under this directory (an image, a test).", valueName: "dir")
    )
    var root = "/"

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let findings = DoctorChecks(environment: environment, paths: DoctorPaths(environment: environment, root: root))
            .run()
        let ok = !findings.contains { $0.status == .action }
        if json {
            try JSONValue.object(["ok": .bool(ok), "findings": .array(findings.map(\.json))]).print()
        } else {
            var text = findings.map(\.text).joined(separator: "\n") + "\n"
            let actions = findings.filter { $0.status == .action }.count
            text +=
                ok
                ? "Latchkey is the session's keychain: everything is in place.\n"
                : "\(actions) finding(s) need action: run each `next` command, then `latchkey doctor` again.\n"
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        if !ok { throw ExitCode(1) }
    }
}
