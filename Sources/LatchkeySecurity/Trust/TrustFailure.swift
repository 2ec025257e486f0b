#if !canImport(Darwin)
import Foundation

/// Why an evaluation failed: the problems found in the built chain, and the `CFError` Apple's
/// `SecTrustEvaluateWithError` would hand out for them.
struct TrustFailure: Sendable {
    /// The problems, in the order found.
    let problems: [TrustProblem]
    /// The subject summary of each certificate of the built chain (leaf first).
    let summaries: [String]

    /// The reported problem: the most severe subtype, and for equal subtypes the lowest certificate index (as
    /// Apple's `SecTrustCopyErrorStrings` picks it).
    var reported: TrustProblem? {
        problems.min { ($0.subtype, $0.index) < ($1.subtype, $1.index) }
    }

    /// The `OSStatus` reported.
    var status: OSStatus {
        reported?.status ?? errSecInternal
    }

    /// Apple's short description, e.g. `“leaf” certificate is expired`.
    var simpleDescription: String {
        guard let reported else { return "Unknown trust error" }
        return reported.subtype.format.replacingOccurrences(of: "%@", with: summary(at: reported.index))
    }

    /// Apple's detailed description: per certificate with problems, `Certificate <i> “<summary>” has errors:`
    /// followed by the checks that failed, each certificate's list ending in `;`.
    var detailedDescription: String {
        var text = ""
        for index in Set(problems.map(\.index)).sorted() {
            let details = problems.filter { $0.index == index }.map(\.detail)
            text += "Certificate \(index) “\(summary(at: index))” has errors: " + details.joined(separator: ", ") + ";"
        }
        return text
    }

    /// The error as Apple builds it: domain `NSOSStatusErrorDomain`, code the reported `OSStatus`, the short
    /// description as `NSLocalizedDescriptionKey`, and under `NSUnderlyingErrorKey` an error with the same
    /// domain and code whose description is the detailed one.
    var cfError: CFError {
        let underlying = NSError(
            domain: "NSOSStatusErrorDomain",
            code: Int(status),
            userInfo: [NSLocalizedDescriptionKey: detailedDescription]
        )
        return NSError(
            domain: "NSOSStatusErrorDomain",
            code: Int(status),
            userInfo: [NSLocalizedDescriptionKey: simpleDescription, NSUnderlyingErrorKey: underlying]
        )
    }

    private func summary(at index: Int) -> String {
        summaries.indices.contains(index) ? summaries[index] : ""
    }
}

/// The outcome of one evaluation.
struct TrustResult: Sendable {
    /// The chain built, leaf first: the validated chain on success, else the best chain found.
    let chain: [SecCertificate]
    /// Why the evaluation failed; `nil` when it succeeded.
    let failure: TrustFailure?
}
#endif
