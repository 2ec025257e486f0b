import Dispatch
import Foundation
import Latchkey
import LatchkeyTokens
import Synchronization

/// The token manager's hot path on the filled keychain, `--samples` calls each (no network: the
/// transport refuses every request, so a measured call that tried to refresh would fail the run):
///
/// - `token-header`: `TokenManager.authorizationHeader()` with a fresh token, the way an app calls it
///   before every API request: an actor hop, the keychain file's change counter read, the cached token
///   set (the counter invalidates it when any process writes the keychain);
/// - `token-header-keychain`: the same header built from a keychain read each time (`TokenStore.tokens`:
///   find, decrypt, decode), as if there were no cache.
enum TokenBenchmarks: BenchmarkSuite {
    static let name = "tokens"
    static let warmUp = 200

    static func run(_ context: inout BenchmarkContext, on keychain: FilledKeychain) throws {
        let samples = context.options.samples
        let typed = Keychain(service: "bench-tokens", store: keychain.store)
        let configuration = TokenManager.Configuration(
            endpoints: OAuthEndpoints(tokenEndpoint: URL(fileURLWithPath: "/nonexistent")),
            client: OAuthClient(id: "bench"),
            service: "https://id.bench.invalid"
        )
        let manager = TokenManager(
            configuration: configuration,
            account: "bench-user",
            keychain: typed,
            transport: NoNetwork()
        )
        let tokens = TokenSet(
            accessToken: String(repeating: "a", count: 40),
            refreshToken: String(repeating: "r", count: 40),
            expiresAt: Date().addingTimeInterval(3600),
            scope: "read"
        )
        let expected = "Bearer " + tokens.accessToken
        if context.options.includes("token-header") {
            context.progress("\(name): token-header")
            let measurement = try wait {
                try await manager.save(tokens)
                var samplesTaken: [UInt64] = []
                samplesTaken.reserveCapacity(samples)
                for run in 0..<(warmUp + samples) {
                    let start = Stopwatch.now()
                    let header = try await manager.authorizationHeader()
                    let elapsed = Stopwatch.now() - start
                    guard header == expected else {
                        throw BenchmarkFailure("authorizationHeader returned another token")
                    }
                    if run >= warmUp { samplesTaken.append(elapsed) }
                }
                return Measurement(nanoseconds: samplesTaken)
            }
            context.report.add("token-header", items: keychain.items, measurement)
        }
        if context.options.includes("token-header-keychain") {
            context.progress("\(name): token-header-keychain")
            let store = manager.store
            try store.save(tokens, for: "bench-user")
            for _ in 0..<warmUp { _ = try store.tokens(for: "bench-user") }
            let measurement = try context.measure(samples) { _ in
                guard let read = try store.tokens(for: "bench-user"), read.authorizationHeader == expected else {
                    throw BenchmarkFailure("the keychain returned another token set")
                }
            }
            context.report.add("token-header-keychain", items: keychain.items, measurement)
        }
    }

    /// Runs `body` on the concurrency runtime and blocks this (main, non-pool) thread until it ends.
    private static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            box.result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        guard let outcome = box.result.withLock({ $0 }) else {
            throw BenchmarkFailure("the token benchmark did not finish")
        }
        return try outcome.get()
    }

    /// Carries an async result back to the waiting thread.
    private final class ResultBox<T: Sendable>: Sendable {
        let result = Mutex<Result<T, any Error>?>(nil)
    }

    /// A transport that refuses every request: the measured calls must never touch the network.
    private struct NoNetwork: TokenTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            throw BenchmarkFailure("the token benchmark tried to reach the network")
        }
    }
}
