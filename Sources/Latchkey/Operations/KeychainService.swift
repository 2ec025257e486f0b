import Foundation

/// Anything that executes `KeychainOperation`s: the in-process `KeychainStore`, and the agent's client.
///
/// Faces hold an `any KeychainService` and speak only operations, so the same face works against a file
/// opened in process or against a per-user agent over a socket. The convenience methods in
/// `KeychainService+Operations.swift` build the operations.
public protocol KeychainService: Sendable {
    /// Executes one operation.
    ///
    /// - Throws: `KeychainError` with Apple's codes (`itemNotFound`, `duplicateItem`,
    ///   `interactionNotAllowed`, `interactionRequired`, `decode`, `param` ...).
    func perform(_ operation: KeychainOperation) throws(KeychainError) -> KeychainOutcome
}
