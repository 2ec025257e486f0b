import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The interpreters whose script is a client's identity: only those the system installed, never a file
/// that merely has an interpreter's name.
///
/// An executable is a system interpreter when all of these hold (docs/agent.md, "Interpreters"):
/// - its resolved path is in one of `directories` (`/usr/bin`, `/bin`, `/usr/local/bin`, `/usr/sbin`, `/sbin`);
/// - its file name is one of the interpreters: `python`, `python3`, `python3.12` …, `perl`, `perl5.36` …,
///   `ruby`, `ruby3.1` …, `node`, `nodejs`, `bash`, `sh`, `dash`, `zsh`, `ksh`, `mksh`;
/// - the file and every directory above it belong to root and are not writable by group or others, so no
///   other user (and, for a user other than root, not the user either) can have put it there.
///
/// A copy of a program named `python3` or `sh` anywhere else is an ordinary program: its own path is its
/// identity.
public enum SystemInterpreter {
    /// The interpreter families.
    public enum Family: Sendable {
        /// `python`, `python3`, `python3.12` …
        case python
        /// `perl`, `perl5.36` …
        case perl
        /// `ruby`, `ruby3.1` …
        case ruby
        /// `node`, `nodejs`
        case node
        /// `bash`, `sh`, `dash`, `zsh`, `ksh`, `mksh`
        case shell
    }

    /// The directories a system interpreter is installed in.
    public static let directories = ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin"]

    /// The family of `executable` (a resolved absolute path) when it is a system interpreter; `nil` otherwise.
    public static func family(of executable: String) -> Family? {
        guard let family = family(named: (executable as NSString).lastPathComponent),
            directories.contains((executable as NSString).deletingLastPathComponent),
            isSystemOwned(executable)
        else { return nil }
        return family
    }

    /// The family an interpreter's file name belongs to, by name alone: no trust decision (that is
    /// `family(of:)`).
    public static func family(named name: String) -> Family? {
        func versioned(_ base: String) -> Bool {
            guard name.hasPrefix(base) else { return false }
            return name.dropFirst(base.count).allSatisfy { $0.isNumber || $0 == "." }
        }
        if versioned("python") { return .python }
        if versioned("perl") { return .perl }
        if versioned("ruby") { return .ruby }
        if name == "node" || name == "nodejs" { return .node }
        if ["bash", "sh", "dash", "zsh", "ksh", "mksh"].contains(name) { return .shell }
        return nil
    }

    /// Whether `path` and every directory above it belong to root and are not writable by group or others.
    static func isSystemOwned(_ path: String) -> Bool {
        var current = path
        while true {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_uid == 0, info.st_mode & 0o022 == 0 else { return false }
            if current == "/" { return true }
            let parent = (current as NSString).deletingLastPathComponent
            current = parent.isEmpty ? "/" : parent
        }
    }
}
