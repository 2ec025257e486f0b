// swift-tools-version:6.1
import PackageDescription

/// Swift 6 language mode everywhere; strict concurrency is implied by it.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "Latchkey",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Latchkey", targets: ["Latchkey"]),
        // Apple's API under names of its own: no module named `Security` or `LocalAuthentication` in a build
        // that uses only these (docs/apple-compatibility.md, "Module layout").
        .library(name: "LatchkeySecurity", targets: ["LatchkeySecurity"]),
        .library(name: "LatchkeyLocalAuthentication", targets: ["LatchkeyLocalAuthentication"]),
        // Opt-in one-file shims for code that must say `import Security` / `import LocalAuthentication`
        // unchanged. Not for a build that also builds swift-certificates' `X509`, which probes
        // `canImport(Security)` (docs/apple-compatibility.md, "Porting routes").
        .library(name: "Security", targets: ["Security"]),
        .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
        .library(name: "LatchkeyTesting", targets: ["LatchkeyTesting"]),
        .executable(name: "latchkey", targets: ["latchkey"]),
        .executable(name: "latchkey-bench", targets: ["latchkey-bench"]),
        .library(name: "LatchkeyTokens", targets: ["LatchkeyTokens"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(
            name: "LatchkeyCrypto",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "LatchkeyStorage",
            // GRDBSQLite: the SQLite C API of the library GRDB links (point reads and safety checks use it).
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // The engine: the item store, its keys, the item schema and the row ledger; the only write path
        // (docs/architecture.md). It knows items and keys, not operations, agents or faces.
        .target(
            name: "LatchkeyEngine",
            dependencies: [
                "LatchkeyCrypto",
                "LatchkeyStorage",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The operation API over the engine (operations, outcomes, their wire codec, the agent's client, the
        // process-wide context) and the typed API (`Keychain`).
        .target(
            name: "Latchkey",
            dependencies: [
                "LatchkeyEngine",
                "LatchkeyCrypto",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "LatchkeyLocalAuthentication",
            dependencies: ["Latchkey"],
            swiftSettings: strict
        ),
        .target(
            name: "LatchkeySecurity",
            dependencies: [
                "Latchkey", "LatchkeyCrypto", "LatchkeyLocalAuthentication",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                // X.509 and ASN.1 by maintained libraries (issue 17): X509 is built before any `Security`
                // module exists, since the shim depends on this target.
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),
        // The shims: nothing of Latchkey's depends on them but SecurityCompileTests.
        .target(name: "Security", dependencies: ["LatchkeySecurity"], swiftSettings: strict),
        .target(name: "LocalAuthentication", dependencies: ["LatchkeyLocalAuthentication"], swiftSettings: strict),
        // Test helpers for users' tests and ours, once: temporary keychains, clocks, child processes, peers.
        .target(
            name: "LatchkeyTesting",
            dependencies: ["Latchkey"],
            swiftSettings: strict
        ),
        // This package's own test harnesses, shared by several test targets and not a product: they drive the
        // built `latchkey` (the agent, the Secret Service on a private bus, the CLI), so `Latchkey` is enough.
        .target(
            name: "LatchkeyTestHarness",
            dependencies: ["Latchkey", "LatchkeyTesting"],
            swiftSettings: strict
        ),
        .target(name: "CLatchkeyAgent"),
        .target(
            name: "LatchkeyAgent",
            dependencies: [
                "Latchkey", "LatchkeyCrypto", "CLatchkeyAgent", "CSystemdBus",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // sd-bus and libcrypto's BN are bound with dlopen on first use, not linked (see their headers): only
        // `latchkey agent --secret-service` needs them, and linking them slowed every `latchkey` process. The
        // targets declare what they use, so a build needs neither libsystemd-dev nor libssl-dev.
        .target(name: "CLatchkeyLazy"),
        .target(name: "CSystemdBus", dependencies: ["CLatchkeyLazy"]),
        .target(name: "CLatchkeyOpenSSL", dependencies: ["CLatchkeyLazy"]),
        .target(
            name: "LatchkeySecretService",
            dependencies: [
                "Latchkey", "LatchkeyCrypto", "CSystemdBus", "CLatchkeyOpenSSL",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "latchkey",
            dependencies: [
                "Latchkey", "LatchkeyAgent", "LatchkeySecretService", "LatchkeySecurity", "LatchkeySync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "latchkey-bench",
            dependencies: [
                "Latchkey", "LatchkeyTokens", "LatchkeySecurity", "LatchkeySync",
                .product(name: "GRDBSQLite", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "LatchkeyTokens",
            dependencies: [
                "Latchkey",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "latchkey-token-peer",
            dependencies: ["LatchkeyTokens", "Latchkey"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LatchkeyTokensTests",
            dependencies: [
                "LatchkeyTokens", "LatchkeyTesting", "Latchkey", "LatchkeyAgent",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Sync of synchronizable items through PostgreSQL, end-to-end encrypted (docs/sync.md): the envelope,
        // item identity, the hybrid logical clock, the server's schema and its client.
        .target(
            name: "LatchkeySync",
            dependencies: [
                "Latchkey",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Sync against a real PostgreSQL the tests start themselves (initdb, pg_ctl).
        .testTarget(
            name: "LatchkeySyncTests",
            dependencies: [
                "LatchkeySync", "Latchkey", "LatchkeyTesting", "LatchkeyTestHarness",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "LatchkeyCryptoTests", dependencies: ["LatchkeyCrypto"], swiftSettings: strict),
        .testTarget(name: "LatchkeyStorageTests", dependencies: ["LatchkeyStorage"], swiftSettings: strict),
        // The engine: store, item crypto, record codec, ledger and rollback, crash safety, migrations, plaintext.
        .testTarget(
            name: "LatchkeyEngineTests",
            dependencies: [
                "LatchkeyEngine", "Latchkey", "LatchkeyCrypto", "LatchkeyStorage", "LatchkeyTesting",
                "LatchkeyTestHarness",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // The operation API, its wire codec and the typed `Keychain` API.
        .testTarget(
            name: "LatchkeyTests",
            dependencies: ["Latchkey", "LatchkeyEngine", "LatchkeyTesting", "LatchkeyTestHarness"],
            swiftSettings: strict
        ),
        // The agent, through the built `latchkey` and its socket.
        .testTarget(
            name: "LatchkeyAgentTests",
            dependencies: [
                "LatchkeyAgent", "Latchkey", "LatchkeyEngine", "LatchkeyTesting", "LatchkeyTestHarness",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // The Secret Service on a private D-Bus, takeover from gnome-keyring and its import.
        .testTarget(
            name: "LatchkeySecretServiceTests",
            dependencies: [
                "LatchkeySecretService", "Latchkey", "LatchkeyAgent", "LatchkeyCrypto", "LatchkeyTesting",
                "LatchkeyTestHarness",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // The `latchkey` executable: its tests run the built binary.
        .testTarget(
            name: "LatchkeyCLITests",
            dependencies: ["Latchkey", "LatchkeyTesting", "LatchkeyTestHarness"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SecurityTests",
            dependencies: ["LatchkeySecurity", "LatchkeyLocalAuthentication", "Latchkey", "LatchkeyTesting"],
            swiftSettings: strict
        ),
        // The one target that depends on the shims: iOS-style samples that say `import Security` unchanged, and
        // the tests that build and run the porting-route sample packages under Samples/.
        .testTarget(
            name: "SecurityCompileTests",
            dependencies: ["Security", "LocalAuthentication", "LatchkeyTesting"],
            swiftSettings: strict
        ),
    ]
)

#if canImport(Darwin)
// On Apple platforms the real Security and LocalAuthentication frameworks exist: the shims, which would shadow
// them, are not declared there, nor the tests of the Apple face. `LatchkeySecurity` and
// `LatchkeyLocalAuthentication` stay (empty: every file is `#if !canImport(Darwin)`), so that a package can
// name them with `condition: .when(platforms: [.linux])` (docs/apple-compatibility.md, "Porting routes").
let appleOnlyNames: Set<String> = ["Security", "LocalAuthentication", "SecurityTests", "SecurityCompileTests"]
package.products.removeAll { appleOnlyNames.contains($0.name) }
package.targets.removeAll { appleOnlyNames.contains($0.name) }
#endif
