import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// `export`'s memory is proportional to the archive it writes: the peak resident set of the built binary (its
/// `ru_maxrss`, read by a python3 parent through `getrusage(RUSAGE_CHILDREN)`) for 10 000 items, above that of a
/// small export in the same run, stays within a few times the archive's size (it was about 25 times before the
/// archive was encoded item by item).
struct CLIExportMemoryTests {
    /// Runs `latchkey` under a python3 parent and returns its exit status and peak resident set in bytes.
    static func peak(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, bytes: Int) {
        let python = try Peer.require("python3", package: "python3")
        let script = """
            import resource, subprocess, sys
            status = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL).returncode
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
            sys.exit(status)
            """
        let result = try CLIRunner.run(
            python,
            ["-c", script, BuiltExecutable.latchkey] + arguments,
            environment: environment,
            timeout: 300
        )
        #expect(result.status == 0, "\(arguments.first ?? ""): \(result.stderr)")
        let bytes = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        return (result.status, bytes)
    }

    /// The peak of an export of a keychain of `count` items, and the archive's size.
    static func export(_ count: Int) throws -> (peak: Int, archive: Int) {
        let (keychain, environment) = try CLIProgressTests.filledKeychain(count)
        let pass = keychain.directory + "/archive.pass"
        try "archive pass\n".write(toFile: pass, atomically: true, encoding: .utf8)
        let archive = keychain.directory + "/out.archive"
        let exported = try peak(
            ["export", "-o", archive, "--passphrase-file", pass, "--kdf-cost", "testing"],
            environment: environment
        )
        let size = (try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int) ?? 0
        return (exported.bytes, size)
    }

    @Test func exportOfTenThousandItemsPeaksWithinAFewTimesItsArchive() throws {
        let small = try Self.export(10)
        let large = try Self.export(10_000)
        #expect(small.peak > 0 && large.peak > 0, "the peaks were read")
        #expect(large.archive > 500_000, "a 10 000-item archive: \(large.archive) bytes")
        let growth = large.peak - small.peak
        #expect(
            growth < 8 * large.archive,
            "10 000 items grew the peak by \(growth) bytes for an archive of \(large.archive) bytes"
        )
    }
}
