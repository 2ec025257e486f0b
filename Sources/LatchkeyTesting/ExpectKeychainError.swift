import Latchkey
import Testing

/// Expects `body` to throw a `KeychainError` with `code`, and returns it.
@discardableResult
public func expectKeychainError<T>(
    _ code: KeychainError.Code,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) -> KeychainError? {
    let error = #expect(throws: KeychainError.self, comment, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, comment, sourceLocation: sourceLocation)
    return error
}

/// Expects the `async` `body` to throw a `KeychainError` with `code`, and returns it.
@discardableResult
public func expectKeychainError<T>(
    _ code: KeychainError.Code,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> KeychainError? {
    let error = await #expect(throws: KeychainError.self, comment, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.code == code, comment, sourceLocation: sourceLocation)
    return error
}
