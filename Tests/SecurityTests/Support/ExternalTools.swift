#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing
import LatchkeyTesting

/// Calls a `SecKey*`-style function that reports errors through an `Unmanaged<CFError>` out-parameter;
/// returns its value and the error it reported.
func capturingCFError<T>(_ body: (UnsafeMutablePointer<Unmanaged<CFError>?>) -> T) -> (T, CFError?) {
    var error: Unmanaged<CFError>?
    let value = body(&error)
    return (value, error?.takeRetainedValue())
}

/// Runs a command-line tool (found on `PATH`) in `directory`, output discarded; returns its exit status.
///
/// A missing tool fails the calling test as a missing peer (`Peer.require`), naming its Debian package.
@discardableResult
func runTool(
    _ arguments: [String],
    in directory: URL,
    standardInput: Data? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Int32 {
    _ = try Peer.require(arguments[0], package: Peer.debianPackage(of: arguments[0]), sourceLocation: sourceLocation)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let input = Pipe()
    if standardInput != nil { process.standardInput = input }
    try ProcessLaunch.run(process)
    if let standardInput {
        input.fileHandleForWriting.write(standardInput)
        try input.fileHandleForWriting.close()
    }
    process.waitUntilExit()
    return process.terminationStatus
}

/// A fresh directory under the temporary directory, named `<prefix>-<UUID>`.
func makeTemporaryDirectory(_ prefix: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
#endif
