#if !canImport(Darwin)
/// The opt-in `Security` shim: one line that re-exports `LatchkeySecurity`, for code that must say
/// `import Security` unchanged (an iOS sample, or a keychain wrapper taken as a dependency).
///
/// Why it is a separate product: in a SwiftPM build every module lands in one `Modules` directory on every
/// target's search path (swiftlang/swift-package-manager#8175, #5297), so once a module named `Security`
/// exists in a build, `#if canImport(Security)` turns true in unrelated packages. Latchkey's own products
/// (`latchkey`, `Latchkey`, `LatchkeySecurity`, `LatchkeyTokens`) therefore never build this module;
/// only the package that asks for the `Security` product does.
///
/// Its one incompatibility: a build that also builds swift-certificates' `X509` (Vapor, jwt-kit 5,
/// grpc-swift's NIO transport, swift-nio-extras' certificate reloading). `X509` probes
/// `canImport(Security)` and, finding this module, compiles its Apple-only `SecCertificate` bridging.
/// Such a package takes route (a) or (b) of docs/apple-compatibility.md ("Porting routes") instead:
/// `import LatchkeySecurity`, or `-module-alias Security=LatchkeySecurity`.
@_exported import LatchkeySecurity
#endif
