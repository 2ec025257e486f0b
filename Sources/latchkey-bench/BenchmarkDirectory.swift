import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private (0700) temporary directory holding the benchmark's keychains and their own device secret,
/// so that nothing touches the user's real keychain or device secret.
final class BenchmarkDirectory {
    let path: String
    private let keep: Bool

    /// Creates the directory under `$TMPDIR` (or `/tmp`).
    ///
    /// - Parameter keep: Leave the directory in place when this object goes away.
    init(keep: Bool) throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/latchkey-bench.XXXXXX").utf8CString)
        guard
            let created = template.withUnsafeMutableBufferPointer({ buffer in
                buffer.baseAddress.flatMap { mkdtemp($0) }
            })
        else {
            throw BenchmarkFailure(
                "cannot create a temporary directory under \(base): \(String(cString: strerror(errno)))"
            )
        }
        path = String(cString: created)
        // mkdtemp already uses 0700; state it so the keychain's permission check never depends on umask.
        chmod(path, 0o700)
        self.keep = keep
    }

    /// The device secret used by every keychain of this run (created on first use by Latchkey).
    var deviceSecretPath: String { path + "/device-secret" }

    /// A keychain file path inside the directory.
    func keychain(_ name: String) -> String { path + "/" + name + ".keychain-db" }

    deinit {
        if !keep { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// A benchmark that could not run; the message names the step, never secret data.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
