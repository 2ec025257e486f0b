import Foundation
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// The suites that change the machine or install Latchkey (scripts/install.sh into a temporary prefix, the
/// Debian package into the system, PAM logins of a test user through a service file in /etc/pam.d), nested here
/// so that they never run at the same time: two build the same static binary, two add users, and the package
/// test installs into `/usr`. Being one serialized chain, they also hold at most one of the few threads that
/// Swift Testing runs tests on (as many as cores), so that the other tests, async ones above all, keep running.
@Suite(.serialized)
enum InstallationSuites {}

/// Helpers of the installation tests: the repository, the static `latchkey` they install, and a few commands.
enum Installation {
    /// The repository root (holding Package.swift and scripts/).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// How long a build of the static binary may take (a first build of `.build-products` takes minutes).
    static let buildTimeout: TimeInterval = 3600

    /// The version `latchkey --version` prints, read from Sources/latchkey/Support/Version.swift.
    static func version() throws -> String {
        let source = try String(
            contentsOfFile: repository + "/Sources/latchkey/Support/Version.swift",
            encoding: .utf8
        )
        let line = try #require(source.split(separator: "\n").first { $0.contains("static let current = \"") })
        return try #require(line.split(separator: "\"").dropFirst().first.map(String.init))
    }

    /// Builds `latchkey` with the Swift standard library, Foundation and Dispatch linked statically (debug, in
    /// `.build-products`, where `.ci/run` already built it: then a no-op), and returns its path.
    static func staticLatchkey(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let swift = try Peer.require(
            "swift",
            package: "the Swift toolchain (swift.org)",
            sourceLocation: sourceLocation
        )
        let built = try CLIRunner.run(
            swift,
            ["build", "--package-path", repository, "--static-swift-stdlib", "--product", "latchkey"]
                + ["--scratch-path", repository + "/.build-products"],
            environment: ProcessInfo.processInfo.environment,
            timeout: buildTimeout,
            sourceLocation: sourceLocation
        )
        try #require(built.status == 0, "the static build failed: \(built.stdout) \(built.stderr)")
        let binary = repository + "/.build-products/debug/latchkey"
        try #require(FileManager.default.isExecutableFile(atPath: binary), "no \(binary) after the build")
        return binary
    }

    /// The toolchain's root (`/opt/swift/usr` for `/opt/swift/usr/bin/swift`), resolved through links.
    static func toolchainRoot() throws -> String {
        let swift = try Peer.require("swift", package: "the Swift toolchain (swift.org)")
        return URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// The libraries `ldd` names for `binary`, one line each.
    static func linkedLibraries(_ binary: String) throws -> [String] {
        let ldd = try Peer.require("ldd", package: "libc-bin")
        let listed = try CLIRunner.run(ldd, [binary], environment: ["PATH": "/usr/bin:/bin"])
        #expect(listed.status == 0, "ldd \(binary): \(listed.stderr)")
        return listed.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The lines of `ldd`'s answer that name the Swift toolchain or one of its libraries (`toolchain` is its root).
    static func toolchainLibraries(in lines: [String], toolchain: String) -> [String] {
        let names = ["libswift", "libFoundation", "libdispatch", "libBlocksRuntime", "/opt/swift", toolchain + "/"]
        return lines.filter { line in names.contains { line.contains($0) } || line.contains("not found") }
    }

    /// Runs `binary --version` as `env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH= binary --version` does: nothing
    /// of the toolchain is reachable.
    static func versionWithoutToolchain(_ binary: String) throws -> CLIRunner.Result {
        let env = try Peer.require("env", package: "coreutils")
        return try CLIRunner.run(
            env,
            ["-i", "PATH=/usr/bin:/bin", "LD_LIBRARY_PATH=", binary, "--version"],
            environment: [:]
        )
    }

    /// The value of the first `key=` line of a unit or service file (comments skipped).
    static func value(of key: String, inFile path: String) throws -> String? {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").lazy.filter { !$0.hasPrefix("#") }
            .first { $0.hasPrefix(key + "=") && $0.count > key.count + 1 }
            .map { String($0.dropFirst(key.count + 1)) }
    }

    /// Makes a fresh private directory under the system's temporary directory.
    static func temporaryDirectory(_ prefix: String) throws -> String {
        var template = Array((FileManager.default.temporaryDirectory.path + "/\(prefix)-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Every path under `root` (relative, with a trailing "/" for directories), sorted: what a test compares
    /// before an install and after the uninstall.
    static func tree(_ root: String) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var paths: [String] = []
        while let path = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
            paths.append(isDirectory.boolValue ? path + "/" : path)
        }
        return paths.sorted()
    }
}
