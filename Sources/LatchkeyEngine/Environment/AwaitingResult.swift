import Dispatch
import Synchronization

/// Runs `body` on the cooperative pool and blocks this thread until it returns: for synchronous entry points
/// (the CLI's `ParsableCommand`s, the benchmark's main) that call `async` APIs. Never call it from `async` code.
package func awaitingResult<T: Sendable, E: Error>(_ body: @escaping @Sendable () async throws(E) -> T) throws(E) -> T {
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
