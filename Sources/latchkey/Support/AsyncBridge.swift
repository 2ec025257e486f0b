import Dispatch
import Synchronization

/// Runs `body` on the cooperative pool and blocks this (the command's main) thread until it returns: the
/// commands are synchronous `ParsableCommand`s, and the sync client is `async`.
func awaitingResult<T: Sendable, E: Error>(_ body: @escaping @Sendable () async throws(E) -> T) throws(E) -> T {
    let outcome = Mutex<Result<T, E>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Result<T, E>
        do throws(E) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    guard let result = outcome.withLock({ $0 }) else { fatalError("the task ended without a result") }
    return try result.get()
}
