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
    private let delay: Duration

    /// A transport answering with `steps` in order (the last repeats) after `delay`; no steps means
    /// every call fails.
    init(_ steps: [Step] = [], delay: Duration = .zero) {
        state = Mutex((steps, []))
        self.delay = delay
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
        if delay > .zero { try await Task.sleep(for: delay) }
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
