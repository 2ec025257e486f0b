/// A cap on refreshes per time window: more than `maximumRefreshes` refreshes within `interval` fail
/// with `TokenError.Code.excessiveRefresh` instead of hammering the server (a refresh loop, for example a
/// server that rejects every new access token).
///
/// The default allows 5 refreshes per 30 seconds, as Alamofire's `AuthenticationInterceptor` does.
public struct RefreshWindow: Sendable, Hashable {
    /// The most refreshes allowed within `interval`.
    public var maximumRefreshes: Int
    /// The window's length.
    public var interval: Duration

    /// Makes a window.
    ///
    /// - Parameters:
    ///   - maximumRefreshes: The most refreshes within `interval` (at least 1).
    ///   - interval: The window's length.
    public init(maximumRefreshes: Int, interval: Duration) {
        self.maximumRefreshes = max(1, maximumRefreshes)
        self.interval = interval
    }

    /// 5 refreshes per 30 seconds.
    public static let `default` = RefreshWindow(maximumRefreshes: 5, interval: .seconds(30))
}

/// How refreshes that fail transiently (network, 429, 5xx) are retried before the error is reported.
///
/// The default, `.none`, reports the first failure: the tokens are kept and the app decides. With
/// `.exponential(...)` the manager waits `initialDelay`, then twice that, ... (at most `maximumDelay`, and
/// at least the server's `Retry-After`); a `Retry-After` beyond `maximumDelay` ends the retries.
public struct RetryPolicy: Sendable, Hashable {
    /// Retries after the first attempt (0: none).
    public var maximumRetries: Int
    /// The wait before the first retry.
    public var initialDelay: Duration
    /// The longest wait between attempts.
    public var maximumDelay: Duration

    /// Makes a policy.
    ///
    /// - Parameters:
    ///   - maximumRetries: Retries after the first attempt.
    ///   - initialDelay: The first wait; each later wait doubles.
    ///   - maximumDelay: The longest wait.
    public init(maximumRetries: Int, initialDelay: Duration, maximumDelay: Duration) {
        self.maximumRetries = max(0, maximumRetries)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// No retries: the first transient failure is reported.
    public static let none = RetryPolicy(maximumRetries: 0, initialDelay: .zero, maximumDelay: .zero)

    /// Exponential backoff: `retries` retries starting at `initialDelay` (default 0.5 s), doubling, capped
    /// at `maximumDelay` (default 8 s).
    public static func exponential(
        retries: Int,
        initialDelay: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(8)
    ) -> RetryPolicy {
        RetryPolicy(maximumRetries: retries, initialDelay: initialDelay, maximumDelay: maximumDelay)
    }

    /// The wait before retry number `retry` (0-based), or `nil` when no retry is left or the server asks
    /// for longer than `maximumDelay`.
    func delay(beforeRetry retry: Int, retryAfter: Duration?) -> Duration? {
        guard retry < maximumRetries else { return nil }
        var delay = initialDelay
        for _ in 0..<retry { delay = min(delay * 2, maximumDelay) }
        delay = min(delay, maximumDelay)
        if let retryAfter {
            guard retryAfter <= maximumDelay else { return nil }
            delay = max(delay, retryAfter)
        }
        return delay
    }
}
