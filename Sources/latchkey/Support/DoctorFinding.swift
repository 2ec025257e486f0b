import Foundation

/// One thing `latchkey doctor` checked: what it found, whether something needs doing, and the exact next step.
struct DoctorFinding {
    /// Whether a finding needs the user.
    enum Status: String {
        /// In place.
        case ok
        /// Not in place: `next` says what to do; `doctor` exits 1.
        case action
        /// Worth knowing, nothing required (a locked agent, keyrings that may be imported already).
        case info
    }

    /// The check's stable name (`secret-service-owner`, `agent`, `units`, …), the key scripts match on.
    var check: String
    /// What was found.
    var status: Status
    /// One line in the user's words.
    var summary: String
    /// Further lines (each file that claims the name, each PAM line, …).
    var details: [String] = []
    /// The exact command to run next, when there is one.
    var next: String?
    /// Machine-readable facts for `--json`.
    var facts: [String: JSONValue] = [:]

    /// The finding as a JSON object: `check`, `status`, `summary`, `details`, `next` and its facts.
    var json: JSONValue {
        var object = facts
        object["check"] = .string(check)
        object["status"] = .string(status.rawValue)
        object["summary"] = .string(summary)
        object["details"] = .array(details.map(JSONValue.string))
        object["next"] = next.map(JSONValue.string) ?? .null
        return .object(object)
    }

    /// The finding as lines for people: `ok      check: summary`, its details, then `next: command`.
    var text: String {
        var lines = ["\(status.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(check): \(summary)"]
        lines += details.map { "        \($0)" }
        if let next { lines.append("        next: \(next)") }
        return lines.joined(separator: "\n")
    }
}
