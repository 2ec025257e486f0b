import LatchkeyTesting
import Testing

/// The test-support rule for external programs: a missing peer fails the test with the package to install.
struct PeerTests {
    @Test func aMissingPeerFailsWithThePackageToInstall() throws {
        try withKnownIssue("the peer does not exist, so the requirement fails") {
            _ = try Peer.require("latchkey-no-such-peer", package: "latchkey-no-such-package")
        } matching: { issue in
            issue.comments.contains {
                $0.rawValue.contains("peer latchkey-no-such-peer missing")
                    && $0.rawValue.contains("install the Debian package latchkey-no-such-package")
            }
        }
    }

    @Test func anInstalledPeerIsFoundOnThePath() throws {
        let shell = try Peer.require("sh", package: "dash")
        #expect(shell.hasSuffix("/sh"))
        #expect(Peer.path(of: shell) == shell)
        #expect(Peer.path(of: "/nonexistent/latchkey-no-such-peer") == nil)
    }
}
