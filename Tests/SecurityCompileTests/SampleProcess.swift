#if !canImport(Darwin)
import Foundation
import LatchkeyTesting
import Testing

/// What the sample-package tests (`PortingRouteTests`, `X509SampleTests`) share: the repository root, running
/// `swift` and the built samples, and reading which modules SwiftPM linked into a product.
enum SampleProcess {
    /// The repository root (this file is `Tests/SecurityCompileTests/SampleProcess.swift`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// What a finished child process left: its exit status and its output.
    struct Finished {
        /// The exit status.
        var status: Int32
        /// Standard output, and standard error unless it went to a file.
        var output: String
    }

    /// Runs `executable` to its end, reading its output while it runs (a full pipe would block it). Standard
    /// error goes to the file `errorFile` when one is given, else into the output.
    static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        errorFile: String? = nil
    ) throws -> Finished {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        process.standardOutput = output
        if let errorFile {
            try #require(FileManager.default.createFile(atPath: errorFile, contents: nil), "cannot create \(errorFile)")
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        } else {
            process.standardError = output
        }
        process.standardInput = FileHandle.nullDevice
        try ProcessLaunch.run(process)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Finished(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// The first executable called `name` on `PATH`, then in `/usr/bin`.
    static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin"]
        return directories.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The modules whose objects SwiftPM linked into `product` built in `scratch` (the `<Module>.build/`
    /// directories its `Objects.LinkFileList` names): the product's whole dependency closure.
    static func linkedModules(of product: String, in scratch: String) throws -> Set<String> {
        let list = try String(
            contentsOfFile: scratch + "/debug/" + product + ".product/Objects.LinkFileList",
            encoding: .utf8
        )
        return Set(list.matches(of: /\/([A-Za-z0-9_]+)\.build\//).map { String($0.output.1) })
    }
}
#endif
