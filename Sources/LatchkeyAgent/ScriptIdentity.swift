import Foundation
import Latchkey

/// The script a system interpreter runs, which is the identity of a client whose executable is one
/// (`SystemInterpreter`): every Python program is `/usr/bin/python3.x` to the kernel, so the agent looks at
/// what the interpreter was asked to run.
///
/// Only a system interpreter counts: a file elsewhere named `python3` or `sh` is an ordinary program.
/// (`env` in a `#!/usr/bin/env python3` line replaces itself with the interpreter, so the process is the
/// interpreter.) From `/proc/<pid>/cmdline` the interpreter's own options are skipped; the first other
/// argument is the script, resolved against the process's working directory (`/proc/<pid>/cwd`) and made
/// absolute and symlink-free. A command given inline (`python3 -c`, `python3 -m`, `perl -e`, `ruby -e`,
/// `node -e`/`-p`, `sh -c`) or read from standard input (`-`, `sh -s`, no argument) has no script file: the
/// identity stays the interpreter. So does an argument that is not a regular file.
///
/// This is only as trustworthy as the process's arguments: a process can rewrite its own
/// `/proc/<pid>/cmdline`, and a script that changed its working directory before connecting is resolved
/// against the new one (docs/agent.md, "What the agent cannot stop").
public enum ScriptIdentity {
    typealias Family = SystemInterpreter.Family

    /// Whether `executable` (a resolved absolute path) is a system interpreter whose script is the identity.
    public static func isInterpreter(_ executable: String) -> Bool { SystemInterpreter.family(of: executable) != nil }

    /// Whether `path` is a readable regular file, which can be a script's identity.
    public static func isScriptFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isReadableFile(atPath: path)
    }

    /// The script process `process` runs, when its executable is a system interpreter running a script file;
    /// `nil` otherwise.
    public static func script(ofProcess process: Int32, executable: String) -> String? {
        guard isInterpreter(executable),
            let raw = FileManager.default.contents(atPath: "/proc/\(process)/cmdline")
        else { return nil }
        var arguments = raw.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        if arguments.last == "" { arguments.removeLast() }
        let directory = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process)/cwd")) ?? "/"
        return script(arguments: arguments, executable: executable, workingDirectory: directory)
    }

    /// The script named by an interpreter's `arguments` (its whole argument vector, `argv[0]` first),
    /// resolved against `workingDirectory`; `nil` when there is none or it is not a regular file.
    public static func script(arguments: [String], executable: String, workingDirectory: String) -> String? {
        guard let family = SystemInterpreter.family(of: executable) else { return nil }
        return script(arguments: arguments, family: family, workingDirectory: workingDirectory)
    }

    /// The script named by the `arguments` of an interpreter of `family` (its whole argument vector,
    /// `argv[0]` first), resolved against `workingDirectory`; `nil` when there is none or it is not a regular
    /// file.
    public static func script(
        arguments: [String],
        family: SystemInterpreter.Family,
        workingDirectory: String
    )
        -> String?
    {
        guard arguments.count > 1, let argument = scriptArgument(Array(arguments.dropFirst()), family: family)
        else { return nil }
        let path = argument.hasPrefix("/") ? argument : workingDirectory + "/" + argument
        let canonical = AgentLocation.canonical(path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: canonical, isDirectory: &isDirectory), !isDirectory.boolValue
        else { return nil }
        return canonical
    }

    /// The first argument after the interpreter's options, or `nil` when the options say there is no
    /// script file (inline code, a module, standard input).
    static func scriptArgument(_ arguments: [String], family: Family) -> String? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { return index < arguments.count ? arguments[index] : nil }
            if argument == "-" { return nil }
            if family == .shell, argument.hasPrefix("+") {
                if argument == "+o" || argument == "+O" { index += 1 }
                continue
            }
            guard argument.hasPrefix("-") else { return argument }
            switch option(argument, family: family) {
            case .noScript: return nil
            case .flag: continue
            case .takesValue: index += 1
            }
        }
        return nil
    }

    private enum OptionKind { case noScript, flag, takesValue }

    /// What one option argument (starting with `-`) means for `family`.
    private static func option(_ argument: String, family: Family) -> OptionKind {
        if argument.hasPrefix("--") {
            let name = String(argument.dropFirst(2).prefix { $0 != "=" })
            let inline = argument.contains("=")
            switch family {
            case .node:
                if ["eval", "print", "interactive"].contains(name) { return .noScript }
                let valued = [
                    "require", "import", "input-type", "loader", "experimental-loader", "conditions", "title",
                ]
                return valued.contains(name) && !inline ? .takesValue : .flag
            case .shell:
                return ["rcfile", "init-file"].contains(name) && !inline ? .takesValue : .flag
            case .python:
                return name == "check-hash-based-pycs" && !inline ? .takesValue : .flag
            case .perl, .ruby:
                return .flag
            }
        }
        let letters = Array(argument.dropFirst())
        let (inline, valued): (Set<Character>, Set<Character>) =
            switch family {
            case .python: (["c", "m"], ["W", "X"])
            case .perl: (["e", "E"], [])  // perl's -I, -M, -x … take their value attached
            case .ruby: (["e"], ["I", "r", "C", "E"])
            case .node: (["e", "p", "i"], ["r"])
            case .shell: (["c", "s", "i"], ["o", "O"])
            }
        for (offset, letter) in letters.enumerated() {
            if inline.contains(letter) { return .noScript }
            if valued.contains(letter) { return offset == letters.count - 1 ? .takesValue : .flag }
        }
        return .flag
    }
}
