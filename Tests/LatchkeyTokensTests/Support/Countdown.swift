/// Opens once `count` arrivals have been counted; whoever waits before that is resumed then. Tests use
/// it to wait for an event (every caller has started, the manager reached its second poll) instead of
/// guessing how long that takes.
actor Countdown {
    private var remaining: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A countdown that opens after `count` arrivals.
    init(_ count: Int) {
        remaining = count
    }

    /// Counts one arrival; the last one resumes every waiter.
    func arrive() {
        remaining -= 1
        guard remaining <= 0 else { return }
        let ready = waiters
        waiters.removeAll()
        for waiter in ready { waiter.resume() }
    }

    /// Returns once every arrival has been counted.
    func wait() async {
        guard remaining > 0 else { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}

/// Numbers the calls made to it (0, 1, 2 ...), for injected sleeps that act on the n-th wait.
actor CallCounter {
    private var count = 0

    /// The number of this call.
    func next() -> Int {
        defer { count += 1 }
        return count
    }
}
