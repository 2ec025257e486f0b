import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// The runner itself: deadlines and output capture.
struct CLIRunnerTests {
    @Test func runnerCapturesOutputAndStatus() throws {
        let result = try CLIRunner.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], environment: [:])
        #expect(result.status == 3)
        #expect(result.stdout == "out\n")
        #expect(result.stderr == "err\n")
    }
}
