import Foundation
import LatchkeyTokens
import Synchronization

/// An in-memory `TokenTransport` for tests that need no server: answers from a script, requests recorded.
final class ScriptedTransport: TokenTransport {
    /// What a scripted call does.
    enum Step: Sendable {
        case respond(TransportResponse)
        case fail
    }

    private let state: Mutex<(steps: [Step], requests: [TransportRequest])>
    private let gate: (@Sendable () async -> Void)?

    /// A transport answering with `steps` in order (the last repeats); no steps means every call fails.
    ///
    /// - Parameters:
    ///   - steps: The answers.
    ///   - gate: Awaited after a request is recorded and before it is answered, so that a test decides
    ///     when an answer arrives (an event it waits for, never a delay).
    init(_ steps: [Step] = [], gate: (@Sendable () async -> Void)? = nil) {
        state = Mutex((steps, []))
        self.gate = gate
    }

    /// The requests sent so far.
    var requests: [TransportRequest] { state.withLock { $0.requests } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let step: Step? = state.withLock { state in
            state.requests.append(request)
            guard let first = state.steps.first else { return nil }
            if state.steps.count > 1 { state.steps.removeFirst() }
            return first
        }
        if let gate { await gate() }
        switch step {
        case .respond(let response): return response
        case .fail, nil: throw URLError(.cannotConnectToHost)
        }
    }

    /// A JSON response.
    static func json(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> Step {
        .respond(
            TransportResponse(
                status: status,
                headers: [("Content-Type", "application/json")] + headers,
                body: Data(text.utf8)
            )
        )
    }
}
