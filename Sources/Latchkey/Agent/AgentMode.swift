import Foundation

/// Whether faces use the per-user agent: `LATCHKEY_AGENT=auto|off|required` (default `auto`).
public enum AgentMode: String, Sendable, Hashable, CaseIterable {
    /// Use the agent when its socket answers and it serves the keychain asked for; otherwise open the
    /// file in process, as when no agent runs.
    case auto
    /// Never use the agent: always open the file in process.
    case off
    /// Always use the agent; fail with `notAvailable` (-25291) when none answers.
    case required

    /// The mode named by `LATCHKEY_AGENT`; unset, empty or unknown values mean `auto`.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> AgentMode {
        environment["LATCHKEY_AGENT"].flatMap { AgentMode(rawValue: $0.lowercased()) } ?? .auto
    }
}
