// swift-tools-version:6.1
// Latchkey beside swift-certificates (issue 17): an application that depends on `LatchkeySecurity` and on
// `X509` together, as a Vapor, jwt-kit or grpc-swift application does. No module named `Security` exists in this
// build, so `X509`'s `#if canImport(Security)` stays false however often it is built. Built twice from clean by
// Tests/SecurityCompileTests/X509SampleTests.swift.
import PackageDescription

let package = Package(
    name: "WithX509",
    platforms: [.macOS(.v15)],
    dependencies: [
        // An application names Latchkey by its URL and version; the sample uses the checkout it lives in.
        .package(name: "Latchkey", path: "../.."),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        .executableTarget(
            name: "WithX509",
            dependencies: [
                .product(name: "LatchkeySecurity", package: "Latchkey", condition: .when(platforms: [.linux])),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
