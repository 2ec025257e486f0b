import ArgumentParser
import Foundation
import Latchkey

/// Runs a command body, printing keychain errors on stderr and exiting with `security`'s codes.
func runReportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as KeychainError {
        FileHandle.standardError.write(Data("latchkey: \(error.message) (OSStatus \(error.code.rawValue))\n".utf8))
        throw ExitCode(error.code == .itemNotFound ? 44 : 1)
    }
}
