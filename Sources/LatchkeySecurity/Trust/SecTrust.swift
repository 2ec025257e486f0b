#if !canImport(Darwin)
import Foundation
import Synchronization

/// `SecTrust`: a certificate chain to evaluate, the policies to evaluate it against, and the result (mirrors
/// Apple's `SecTrustRef`).
///
/// Made by `SecTrustCreateWithCertificates`, configured by `SecTrustSetAnchorCertificates`,
/// `SecTrustSetAnchorCertificatesOnly`, `SecTrustSetVerifyDate` and `SecTrustSetPolicies`, evaluated by
/// `SecTrustEvaluateWithError` (or `SecTrustEvaluateAsyncWithError`). Evaluation builds and checks the chain
/// with swift-certificates' `Verifier`; see docs/apple-compatibility.md, "SecTrust and SecPolicy".
///
/// The object is thread-safe: its settings and its cached result sit behind one lock, and every setter
/// discards the cached result, as Apple's do, so the next query evaluates again.
public final class SecTrust: Hashable, Sendable, CustomStringConvertible {
    /// What an evaluation depends on; a setter changes one field.
    struct Settings: Sendable {
        /// The certificates to evaluate, leaf first, then any intermediates in any order.
        var certificates: [SecCertificate]
        /// The policies that must all pass.
        var policies: [SecPolicy]
        /// The caller's anchors (`SecTrustSetAnchorCertificates`), `nil` when none were set.
        var anchors: [SecCertificate]?
        /// Whether only `anchors` are trusted (else the system's roots too).
        var anchorsOnly: Bool
        /// The date the certificates must be valid on; `nil` for the time of each evaluation.
        var verifyDate: Date?
        /// `SecTrustSetNetworkFetchAllowed`'s value: recorded, never used (nothing is fetched).
        var networkFetchAllowed: Bool
    }

    /// The settings, the cached result, and a counter that tells an evaluation whether the settings changed
    /// while it ran (its result is then returned to its caller but not cached).
    private struct State: Sendable {
        var settings: Settings
        var generation: UInt64 = 0
        var result: TrustResult?
    }

    private let state: Mutex<State>

    init(certificates: [SecCertificate], policies: [SecPolicy]) {
        state = Mutex(
            State(
                settings: Settings(
                    certificates: certificates,
                    policies: policies,
                    anchors: nil,
                    anchorsOnly: false,
                    verifyDate: nil,
                    networkFetchAllowed: true
                )
            )
        )
    }

    /// The current settings.
    var settings: Settings {
        state.withLock { $0.settings }
    }

    /// Changes the settings and discards the cached result.
    func update(_ change: (inout Settings) -> Void) {
        state.withLock { state in
            change(&state.settings)
            state.generation &+= 1
            state.result = nil
        }
    }

    /// The result of evaluating the current settings: the cached one, else a new evaluation, run to completion
    /// on the calling thread (`TrustExecutor.runBlocking`).
    func evaluateIfNecessary() -> TrustResult {
        let (cached, settings, generation) = state.withLock { ($0.result, $0.settings, $0.generation) }
        if let cached { return cached }
        let result = TrustExecutor.runBlocking { await TrustEvaluation(settings: settings).run() }
        store(result, evaluatedAt: generation)
        return result
    }

    /// The result of evaluating the current settings, evaluated on the caller's executor when not cached.
    func evaluate() async -> TrustResult {
        let (cached, settings, generation) = state.withLock { ($0.result, $0.settings, $0.generation) }
        if let cached { return cached }
        let result = await TrustEvaluation(settings: settings).run()
        store(result, evaluatedAt: generation)
        return result
    }

    private func store(_ result: TrustResult, evaluatedAt generation: UInt64) {
        state.withLock { state in
            if state.generation == generation { state.result = result }
        }
    }

    /// Identity: two trust objects are equal only when they are the same object, as for Apple's `CFEqual`.
    public static func == (lhs: SecTrust, rhs: SecTrust) -> Bool {
        lhs === rhs
    }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// A description giving the number of certificates and policies, e.g. `<SecTrust 2 certificate(s), 1 policy(ies)>`.
    public var description: String {
        let settings = settings
        return "<SecTrust \(settings.certificates.count) certificate(s), \(settings.policies.count) policy(ies)>"
    }
}

/// `SecTrustGetTypeID`: the type identifier of `SecTrust` objects (Latchkey's own number, not Apple's).
public func SecTrustGetTypeID() -> CFTypeID { 305 }
#endif
