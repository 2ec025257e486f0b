import Foundation

/// The directories `latchkey doctor` reads, computed from the environment (`HOME`, `XDG_*`) and a root
/// directory for the system's own files (`/` unless `--root` says otherwise), so that it can check a
/// temporary home or an image as well as the running system.
struct DoctorPaths {
    /// The user's home.
    var home: String
    /// Where system files are read (`/`).
    var root: String
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    var configHome: String
    /// `$XDG_DATA_HOME`, else `~/.local/share`.
    var dataHome: String
    /// `$XDG_DATA_DIRS`, else `/usr/local/share:/usr/share` under the root.
    var dataDirectories: [String]
    /// `$XDG_CONFIG_DIRS`, else `/etc/xdg` under the root.
    var configDirectories: [String]

    /// The paths of `environment`, with system files read under `root`.
    init(environment: [String: String], root: String = "/") {
        let root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
        func system(_ path: String) -> String { root == "/" ? path : root + path }
        func set(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        func list(_ name: String) -> [String]? {
            set(name).map { $0.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") } }
        }
        self.root = root
        home = set("HOME") ?? NSHomeDirectory()
        configHome = set("XDG_CONFIG_HOME") ?? home + "/.config"
        dataHome = set("XDG_DATA_HOME") ?? home + "/.local/share"
        dataDirectories = list("XDG_DATA_DIRS") ?? [system("/usr/local/share"), system("/usr/share")]
        configDirectories = list("XDG_CONFIG_DIRS") ?? [system("/etc/xdg")]
        systemUnitDirectories = ["/etc/systemd/user", "/usr/local/lib/systemd/user", "/usr/lib/systemd/user"]
            .map(system)
        pamDirectory = system("/etc/pam.d")
    }

    /// `/etc/systemd/user`, `/usr/local/lib/systemd/user`, `/usr/lib/systemd/user` under the root.
    var systemUnitDirectories: [String]
    /// `/etc/pam.d` under the root.
    var pamDirectory: String

    /// The user's unit directory, `$XDG_CONFIG_HOME/systemd/user`.
    var userUnitDirectory: String { configHome + "/systemd/user" }
    /// Where systemd looks for user units, in its order of precedence.
    var unitDirectories: [String] { [userUnitDirectory] + systemUnitDirectories }
    /// The session bus's service directories, in its order: `$XDG_DATA_HOME/dbus-1/services`, then each of
    /// `$XDG_DATA_DIRS`.
    var busServiceDirectories: [String] { ([dataHome] + dataDirectories).map { $0 + "/dbus-1/services" } }
    /// gnome-keyring's keyrings, `$XDG_DATA_HOME/keyrings`.
    var keyringDirectory: String { dataHome + "/keyrings" }
    /// The user's autostart directory, `$XDG_CONFIG_HOME/autostart`.
    var userAutostartDirectory: String { configHome + "/autostart" }

    /// The first of Latchkey's shipped copies of `relative` under `<data dir>/latchkey/` (where
    /// scripts/install.sh and the .deb put the Secret Service switch), or `nil`.
    func shipped(_ relative: String) -> String? {
        dataDirectories.map { $0 + "/latchkey/" + relative }.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// `path` with the home directory written `~` when it is inside it (for commands a user types).
    func typed(_ path: String) -> String {
        path.hasPrefix(home + "/") && home != "/" ? "~" + path.dropFirst(home.count) : path
    }
}
