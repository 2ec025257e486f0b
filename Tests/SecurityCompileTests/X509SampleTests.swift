#if !canImport(Darwin)
import Foundation
import LatchkeyTesting
import Testing

/// Builds and runs `Samples/WithX509`, an executable that depends on Latchkey's `LatchkeySecurity` and on
/// swift-certificates' `X509` together (issue 17): swift-certificates makes a certificate, the Apple face reads
/// it back. `X509` probes `#if canImport(Security)`; with no module named `Security` in the build it must build
/// twice in a row: from clean, then again after `X509`'s own source changed, which recompiles `X509` in the
/// tree the first build left (where the shim route fails, docs/apple-compatibility.md "Porting routes").
///
/// The sample has a scratch path of its own, `.build-samples-x509`: the porting routes' `.build-samples` holds
/// the `Security` shim's module, which is exactly the tree `X509` must not be compiled in. Before the first
/// build the build products are removed; the resolved checkouts stay, so nothing is fetched twice.
@Suite(.serialized)
struct X509SampleTests {
    /// The repository root.
    private static let root = SampleProcess.root
    /// The sample's own scratch path.
    private static let scratch = root + "/.build-samples-x509"

    @Test func sampleWithX509BuildsTwiceInARowAndRuns() throws {
        let swift = try #require(
            SampleProcess.executable(named: "swift"),
            "peer swift missing: the Swift toolchain's `swift` must be on PATH (swift.org's Linux toolchain)"
        )
        var times: [Duration] = []
        for round in 1...2 {
            if round == 1 { try Self.removeBuildProducts() } else { try Self.touchX509() }
            let clock = ContinuousClock()
            let start = clock.now
            let build = try SampleProcess.run(
                swift,
                [
                    "build", "--package-path", Self.root + "/Samples/WithX509", "--scratch-path", Self.scratch,
                    "--disable-build-manifest-caching",
                ]
            )
            times.append(clock.now - start)
            try #require(build.status == 0, "build \(round) of Samples/WithX509 failed:\n\(build.output)")
            #expect(
                !FileManager.default.fileExists(atPath: Self.scratch + "/debug/Modules/Security.swiftmodule"),
                "build \(round) wrote a Security module"
            )
        }
        print(
            "Samples/WithX509 builds (clean, X509 changed): \(times.map { $0.formatted(.units(allowed: [.seconds])) })"
        )

        let linked = try SampleProcess.linkedModules(of: "WithX509", in: Self.scratch)
        #expect(linked.isSuperset(of: ["X509", "SwiftASN1", "LatchkeySecurity", "WithX509"]), "\(linked)")
        #expect(linked.isDisjoint(with: ["Security", "LocalAuthentication"]), "\(linked)")

        let sample = try SampleProcess.run(Self.scratch + "/debug/WithX509", [])
        #expect(sample.status == 0, "Samples/WithX509 failed:\n\(sample.output)")
        #expect(sample.output == "with X509: x509-sample.example, serial true, key true, DER true\n")
    }

    /// Removes everything in the scratch path but the resolved dependencies (`checkouts`, `repositories`,
    /// `artifacts` and the workspace state), so that the next build compiles every module anew.
    private static func removeBuildProducts() throws {
        let manager = FileManager.default
        guard manager.fileExists(atPath: scratch) else { return }
        let kept: Set<String> = ["checkouts", "repositories", "artifacts", "workspace-state.json"]
        for entry in try manager.contentsOfDirectory(atPath: scratch) where !kept.contains(entry) {
            try manager.removeItem(atPath: scratch + "/" + entry)
        }
    }

    /// Marks `X509`'s `Certificate.swift` (in the sample's checkouts) as changed, so the next build recompiles
    /// `X509` and what depends on it.
    private static func touchX509() throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date()],
            ofItemAtPath: scratch + "/checkouts/swift-certificates/Sources/X509/Certificate.swift"
        )
    }
}
#endif
