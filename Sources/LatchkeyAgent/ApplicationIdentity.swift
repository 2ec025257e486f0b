import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// Which application a client process is, as the agent decides it from the kernel: the resolved absolute
/// path of the executable the process runs, or, for a system interpreter, of the script it runs.
///
/// The path names the application, as Apple's application identifier does: a copy of a program in another
/// directory, or another program saved under the same file name, is another application. The rules
/// (docs/agent.md, "Identity and access groups"):
///
/// - The executable is `/proc/<pid>/exe`. A process whose executable was deleted or replaced after it
///   started (the link ends in ` (deleted)`, or the file now at that path is not the image the process
///   runs) has no identity: it is refused.
/// - A process started through the dynamic loader (`/lib64/ld-linux-x86-64.so.2 ./program`) runs the loader's
///   image, which every program started that way shares: it is refused too.
/// - A system interpreter (`SystemInterpreter`: a root-owned file in a system directory, never a file's
///   name alone) running a script file has the script's path as its identity (`ScriptIdentity`).
/// - Content pins compare the SHA-256 of the running image (`contentPath` is `/proc/<pid>/exe`), never of
///   what is at the path now; for a script, of the script file.
public struct ApplicationIdentity: Sendable, Hashable {
    /// The identity: the executable, or the script a system interpreter runs (absolute, symlink-free).
    public var path: String
    /// The executable the process runs (the interpreter, when `path` is a script).
    public var executable: String
    /// The interpreter, when `path` is a script it runs.
    public var interpreter: String?
    /// The file whose SHA-256 a content pin is compared with: the running image (`/proc/<pid>/exe`) for an
    /// executable, the script file for a script.
    public var contentPath: String

    /// Makes an identity.
    public init(path: String, executable: String, interpreter: String?, contentPath: String) {
        self.path = path
        self.executable = executable
        self.interpreter = interpreter
        self.contentPath = contentPath
    }

    /// The identity of process `process`.
    ///
    /// - Throws: `KeychainError.Code.missingEntitlement` (-34018) with the reason when the process has no
    ///   identity the agent can trust: its executable cannot be read, was deleted or replaced since it
    ///   started, or is the dynamic loader.
    public static func of(process: Int32) throws(KeychainError) -> ApplicationIdentity {
        guard let link = PeerIdentity.executableLink(of: process) else {
            throw KeychainError(
                .missingEntitlement,
                "The agent cannot read which program process \(process) runs (/proc/\(process)/exe)."
            )
        }
        let deletedMark = " (deleted)"
        guard !link.hasSuffix(deletedMark), isRunningImage(link, of: process) else {
            let path = link.hasSuffix(deletedMark) ? String(link.dropLast(deletedMark.count)) : link
            throw KeychainError(
                .missingEntitlement,
                "The program \(path) (pid \(process)) was deleted or replaced after it started, so the agent cannot "
                    + "tell which program it is; start it again."
            )
        }
        if DynamicLoader.isLoader(link) {
            throw KeychainError(
                .missingEntitlement,
                "Process \(process) was started through the dynamic loader \(link), which every program started "
                    + "that way shares; run the program itself, not through the loader."
            )
        }
        if SystemInterpreter.family(of: link) != nil,
            let script = ScriptIdentity.script(ofProcess: process, executable: link)
        {
            return ApplicationIdentity(path: script, executable: link, interpreter: link, contentPath: script)
        }
        return ApplicationIdentity(path: link, executable: link, interpreter: nil, contentPath: "/proc/\(process)/exe")
    }

    /// Whether the file at `path` is the image process `process` runs (same device and inode).
    static func isRunningImage(_ path: String, of process: Int32) -> Bool {
        var atPath = stat()
        var image = stat()
        guard stat(path, &atPath) == 0, stat("/proc/\(process)/exe", &image) == 0 else { return false }
        return atPath.st_dev == image.st_dev && atPath.st_ino == image.st_ino
    }
}

/// The dynamic loader, recognised by its resolved path's file name (`ld-linux-x86-64.so.2`, `ld-linux.so.2`,
/// `ld-linux-aarch64.so.1`, `ld.so`, `ld-2.36.so` …).
enum DynamicLoader {
    /// Whether `path` is a dynamic loader.
    static func isLoader(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        return name == "ld.so" || (name.hasPrefix("ld-") && name.contains(".so"))
    }
}
