// swift-tools-version:6.1
// Routes (a) and (b) of docs/apple-compatibility.md ("Porting routes"): iOS keychain code on Linux without any
// module named `Security` in the build, so that a package probing `canImport(Security)` (swift-certificates'
// `X509`) is not misled. Built and run by Tests/SecurityCompileTests/PortingRouteTests.swift.
import PackageDescription

let package = Package(
    name: "PortingRoutes",
    platforms: [.macOS(.v15)],
    dependencies: [
        // An application names Latchkey by its URL and version; the sample uses the checkout it lives in.
        .package(name: "Latchkey", path: "../..")
    ],
    targets: [
        // Route (a): `#if canImport(Darwin) import Security #else import LatchkeySecurity #endif` in the source.
        .executableTarget(
            name: "ConditionalImport",
            dependencies: [
                .product(name: "LatchkeySecurity", package: "Latchkey", condition: .when(platforms: [.linux]))
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Route (b): the source keeps `import Security`; the compiler reads it as `LatchkeySecurity`. SwiftPM
        // accepts unsafe flags only in the root package (the one being built), not in a dependency.
        .executableTarget(
            name: "ModuleAlias",
            dependencies: [
                .product(name: "LatchkeySecurity", package: "Latchkey", condition: .when(platforms: [.linux]))
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .unsafeFlags(["-module-alias", "Security=LatchkeySecurity"], .when(platforms: [.linux])),
            ]
        ),
    ]
)
