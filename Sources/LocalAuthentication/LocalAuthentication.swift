#if !canImport(Darwin)
/// The opt-in `LocalAuthentication` shim: one line that re-exports `LatchkeyLocalAuthentication`, for code
/// that must say `import LocalAuthentication` unchanged (an iOS sample, or a dependency written for iOS).
///
/// Why it is a separate product: in a SwiftPM build every module lands in one `Modules` directory on every
/// target's search path (swiftlang/swift-package-manager#8175, #5297), so once a module named
/// `LocalAuthentication` exists in a build, `#if canImport(LocalAuthentication)` turns true in unrelated
/// packages. Latchkey's own products therefore never build this module; only the package that asks for the
/// `LocalAuthentication` product does.
///
/// Its one incompatibility is the `Security` shim's, beside which it is used: a build that also builds
/// swift-certificates' `X509`, which probes `canImport(Security)` (no package of Latchkey's graph probes
/// `canImport(LocalAuthentication)`). Such a package imports `LatchkeyLocalAuthentication`, or passes
/// `-module-alias LocalAuthentication=LatchkeyLocalAuthentication`; see docs/apple-compatibility.md,
/// "Porting routes".
@_exported import LatchkeyLocalAuthentication
#endif
