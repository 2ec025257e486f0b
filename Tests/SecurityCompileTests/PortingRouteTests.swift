#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// Builds and runs the sample packages of the three porting routes (docs/apple-compatibility.md, "Porting
/// routes"): `Samples/PortingRoutes` holds route (a), `#if canImport(Darwin) import Security #else import
/// LatchkeySecurity #endif`, and route (b), `-module-alias Security=LatchkeySecurity`; `Samples/ShimRoute` holds
/// route (c), the `Security` shim product. Each sample stores a generic password with `SecItemAdd`, reads it
/// back with `SecItemCopyMatching` and prints it, in a keychain of its own temporary directory.
///
/// Every build uses one scratch path, `.build-samples` at the repository root, so that Latchkey's objects are
/// compiled once for all three. The suite is serialized: SwiftPM takes a lock on the scratch path anyway.
@Suite(.serialized)
struct PortingRouteTests {
    /// The repository root.
    private static let root = SampleProcess.root

    @Test func conditionalImportRouteBuildsAndRuns() throws {
        let output = try buildAndRun(package: "PortingRoutes", product: "ConditionalImport")
        #expect(output == "conditional import: route-a-password\n")
        #expect(try Self.linkedModules(of: "ConditionalImport").isDisjoint(with: ["Security", "LocalAuthentication"]))
    }

    @Test func moduleAliasRouteBuildsAndRuns() throws {
        let output = try buildAndRun(package: "PortingRoutes", product: "ModuleAlias")
        #expect(output == "module alias: route-b-password\n")
        #expect(try Self.linkedModules(of: "ModuleAlias").isDisjoint(with: ["Security", "LocalAuthentication"]))
    }

    @Test func shimRouteBuildsAndRuns() throws {
        let output = try buildAndRun(package: "ShimRoute", product: "ShimImport")
        #expect(output == "shim import: route-c-password\n")
        #expect(try Self.linkedModules(of: "ShimImport").contains("Security"))
    }

    /// The modules linked into `product` (`SampleProcess.linkedModules`). Files in `Modules` cannot tell, as the
    /// shared scratch path keeps every module any sample ever built.
    private static func linkedModules(of product: String) throws -> Set<String> {
        let names = try SampleProcess.linkedModules(of: product, in: root + "/.build-samples")
        try #require(names.contains("LatchkeySecurity"), "\(product) links no LatchkeySecurity: \(names)")
        return names
    }

    /// Builds `product` of `Samples/<package>` into the shared scratch path, runs it against a new keychain in
    /// a temporary directory and returns what it printed on standard output.
    private func buildAndRun(
        package: String,
        product: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let swift = try #require(
            SampleProcess.executable(named: "swift"),
            "peer swift missing: the Swift toolchain's `swift` must be on PATH (swift.org's Linux toolchain)",
            sourceLocation: sourceLocation
        )
        let scratch = Self.root + "/.build-samples"
        // Every route builds X509 (LatchkeySecurity depends on it), and X509 must never be compiled beside the
        // `Security` module the shim route leaves in this shared scratch path: it probes canImport(Security)
        // (docs/apple-compatibility.md, "Porting routes"). So, as the docs' recovery does, the shim's module is
        // removed and X509 built first (nothing to do when it is up to date); the shim route writes it again.
        try? FileManager.default.removeItem(atPath: scratch + "/debug/Modules/Security.swiftmodule")
        let x509 = try SampleProcess.run(
            swift,
            [
                "build", "--package-path", Self.root + "/Samples/" + package, "--scratch-path", scratch, "--target",
                "X509", "--disable-build-manifest-caching",
            ]
        )
        try #require(x509.status == 0, "swift build of X509 for Samples/\(package) failed:\n\(x509.output)")
        // Two root packages share the scratch path: SwiftPM's cached build description is the previous root's
        // ("No target named 'ShimImport-…' in build description"), so it is made anew for each build.
        let build = try SampleProcess.run(
            swift,
            [
                "build", "--package-path", Self.root + "/Samples/" + package, "--scratch-path", scratch, "--product",
                product, "--disable-build-manifest-caching",
            ]
        )
        try #require(build.status == 0, "swift build of Samples/\(package) failed:\n\(build.output)")

        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try UnlockCredential.createKeyFile(at: directory + "/key")
        let environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory,
            "XDG_DATA_HOME": directory + "/data",
            "XDG_STATE_HOME": directory + "/state",
            "XDG_RUNTIME_DIR": directory + "/run",
            "LATCHKEY_AGENT": "off",
            "LATCHKEY_KEYCHAIN": directory + "/sample.keychain-db",
            "LATCHKEY_KEY_FILE": directory + "/key",
            "LATCHKEY_DEVICE_SECRET": directory + "/device-secret",
            "LATCHKEY_ACCESS_GROUPS": "com.example.porting",
        ]
        let errorFile = directory + "/stderr"
        let sample = try SampleProcess.run(
            scratch + "/debug/" + product,
            [],
            environment: environment,
            errorFile: errorFile
        )
        let errors = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        try #require(sample.status == 0, "Samples/\(package) \(product) failed:\n\(errors)")
        return sample.output
    }

    /// A new private (0700) temporary directory.
    private static func temporaryDirectory() throws -> String {
        let template = FileManager.default.temporaryDirectory.path + "/latchkey-porting-XXXXXX"
        var bytes = Array(template.utf8CString)
        let created = bytes.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        try #require(created != nil, "mkdtemp failed: \(String(cString: strerror(errno)))")
        return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif
