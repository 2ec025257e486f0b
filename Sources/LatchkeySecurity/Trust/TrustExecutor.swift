#if !canImport(Darwin)
import Foundation
import Synchronization

/// Runs an evaluation (swift-certificates' `Verifier` is `async`) to completion for the synchronous Apple calls
/// (`SecTrustEvaluateWithError`, `SecTrustCopyCertificateChain`...), on the calling thread.
///
/// The work runs as a task whose preferred executor is this object, and the calling thread is that executor:
/// it runs the task's jobs one by one until the task finishes. So a synchronous call needs no thread of Swift's
/// cooperative pool to make progress: called from a pool thread (inside a task), it cannot deadlock waiting for
/// a pool that is full of threads blocked the same way; called from a thread of the caller's own, it starts
/// none. The calling thread is busy for the evaluation, which is what a synchronous call means.
final class TrustExecutor: TaskExecutor, @unchecked Sendable {
    // SAFETY: `jobs` and `finished` are read and written only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    private init() {}

    /// Runs `work` to completion on the calling thread and returns its value.
    static func runBlocking<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) -> Value {
        let executor = TrustExecutor()
        let box = ResultBox<Value>()
        Task(executorPreference: executor) {
            let value = await work()
            box.value.withLock { $0 = value }
            executor.finish()
        }
        executor.runJobsUntilFinished()
        guard let value = box.value.withLock({ $0 }) else {
            preconditionFailure("TrustExecutor: the task finished without a value")
        }
        return value
    }

    /// Queues a job of the task (called by the Swift runtime, from any thread).
    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    private func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Runs queued jobs on this thread, waiting for more, until the task has finished and no job is left.
    private func runJobsUntilFinished() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Where the task leaves its value for the thread that waits.
private final class ResultBox<Value: Sendable>: Sendable {
    let value = Mutex<Value?>(nil)
}
#endif
