import CLatchkeyAgent
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How many connections the agent serves at once: at most `perClient` for one client program, so that a
/// program that opens connections and holds them (with or without a hello) takes only its own share and
/// never blocks another program; and at most `total` altogether, a safety limit below the process's
/// descriptor limit.
///
/// A client program is the peer's uid and its executable as the kernel reports it when the connection is
/// accepted (`PeerIdentity.executable`); an executable that cannot be read is one program of its own.
/// Refusals are counted and logged at most once a second (the log would otherwise be a way to flood the
/// journal).
final class ConnectionLimits: Sendable {
    /// Whose connections are counted together.
    struct Client: Hashable, Sendable {
        /// The peer's user id.
        var user: UInt32
        /// The peer's executable, or `nil` when it could not be read.
        var executable: String?
    }

    /// Why a connection was refused.
    enum Refusal: Equatable, Sendable {
        /// Its program already has `perClient` connections.
        case client
        /// The agent already serves `total` connections.
        case total
    }

    /// What `admit(_:)` decided.
    enum Decision: Equatable, Sendable {
        /// Served: `release(_:)` must follow when the connection ends.
        case admitted
        /// Refused; `logged` says whether this refusal should be logged, `suppressed` how many refusals were
        /// not logged since the last line.
        case refused(Refusal, logged: Bool, suppressed: Int)
    }

    private struct State {
        var counts: [Client: Int] = [:]
        var total = 0
        var refusedSinceLog = 0
        var lastLog: ContinuousClock.Instant?
        /// The most connections held at once since the agent last had none after a crowd of them.
        var peak = 0
    }

    /// When the last connection of at least this many held at once ends, `release(_:)` says so: the agent
    /// then returns the memory their threads freed to the system.
    static let crowd = 32

    /// Connections one program may hold at once.
    let perClient: Int
    /// Connections all programs may hold at once.
    let total: Int
    private let state = Mutex(State())

    /// Makes the limits.
    init(perClient: Int, total: Int) {
        self.perClient = max(1, perClient)
        self.total = max(1, total)
    }

    /// Counts a new connection of `client`, unless a limit is reached.
    func admit(_ client: Client) -> Decision {
        state.withLock { state in
            let refusal: Refusal
            if state.total >= total {
                refusal = .total
            } else if state.counts[client, default: 0] >= perClient {
                refusal = .client
            } else {
                state.total += 1
                state.counts[client, default: 0] += 1
                state.peak = max(state.peak, state.total)
                return .admitted
            }
            let now = ContinuousClock.now
            if let last = state.lastLog, now - last < .seconds(1) {
                state.refusedSinceLog += 1
                return .refused(refusal, logged: false, suppressed: 0)
            }
            let suppressed = state.refusedSinceLog
            state.refusedSinceLog = 0
            state.lastLog = now
            return .refused(refusal, logged: true, suppressed: suppressed)
        }
    }

    /// Forgets a connection of `client` that `admit(_:)` admitted.
    ///
    /// - Returns: Whether it was the last connection after at least `crowd` were held at once.
    func release(_ client: Client) -> Bool {
        state.withLock { state in
            state.total -= 1
            let remaining = state.counts[client, default: 1] - 1
            state.counts[client] = remaining > 0 ? remaining : nil
            guard state.total == 0, state.peak >= Self.crowd else { return false }
            state.peak = 0
            return true
        }
    }

    /// Raises the soft descriptor limit (`RLIMIT_NOFILE`) to the hard one (at most 65 536) and returns the
    /// soft limit now in force.
    static func raiseDescriptorLimit() -> Int {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        let wanted = min(limit.rlim_max, 65_536)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(min(limit.rlim_cur, 1 << 20))
    }

    /// The total limit for a process whose descriptor limit is `descriptors`: the descriptors less a reserve
    /// for the agent's own files (the database, the policy, `/proc`, pinentry), at least 16.
    static func total(forDescriptorLimit descriptors: Int) -> Int {
        max(16, descriptors - 128)
    }
}
