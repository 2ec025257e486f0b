// swift-tools-version:6.1
// Route (c) of docs/apple-compatibility.md ("Porting routes"): iOS keychain code unchanged, through Latchkey's
// opt-in `Security` shim product. Its own package because it puts a module named `Security` into the build.
// Built and run by Tests/SecurityCompileTests/PortingRouteTests.swift.
import PackageDescription

let package = Package(
    name: "ShimRoute",
    platforms: [.macOS(.v15)],
    dependencies: [
        // An application names Latchkey by its URL and version; the sample uses the checkout it lives in.
        .package(name: "Latchkey", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "ShimImport",
            dependencies: [
                // Linux only: on Apple platforms Latchkey declares no `Security` product (Apple's framework is there).
                .product(name: "Security", package: "Latchkey")
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
