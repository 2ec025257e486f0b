#if !canImport(Darwin)
import Foundation

/// One reason a chain fails, as Apple's trust evaluation reports it: a policy check that failed for the
/// certificate at `index` of the built chain (leaf = 0).
///
/// The cases are the checks of Apple's `SecPolicyChecks.list` that this evaluation performs, with Apple's
/// `OSStatus`, its per-check text and its failure subtype, which decides the error reported when several
/// checks fail (`TrustFailure`).
struct TrustProblem: Hashable, Sendable {
    /// A failed check.
    enum Check: Hashable, Sendable {
        /// `CriticalExtensions`: a certificate marks an extension critical that nothing here understands.
        case criticalExtensions
        /// `BasicCertificateProcessing`: RFC 5280 path rules (version, path length, name constraints).
        case basicCertificateProcessing
        /// `BasicConstraintsCA`: a certificate that issued another is not a CA (no basic constraints saying so).
        case basicConstraintsCA
        /// `AnchorTrusted`: the chain ends in a self-signed certificate that is not a trusted anchor.
        case anchorTrusted
        /// `MissingIntermediate`: no issuer of the topmost certificate is known.
        case missingIntermediate
        /// `SSLHostname`: the leaf is not valid for the SSL policy's host name.
        case sslHostname
        /// `TemporalValidity`: the certificate is expired or not yet valid on the verify date.
        case temporalValidity
        /// `ValidRoot`: the trusted root itself is expired or not yet valid on the verify date.
        case validRoot
    }

    /// Apple's failure subtypes, most severe first (`SecTrustErrorSubType`); the most severe one is reported.
    enum Subtype: Int, Comparable, Sendable {
        case compliance = 5
        case trust = 7
        case name = 9
        case expired = 10

        static func < (lhs: Subtype, rhs: Subtype) -> Bool { lhs.rawValue < rhs.rawValue }

        /// Apple's error description for this subtype, `%@` being the certificate's subject summary.
        var format: String {
            switch self {
            case .compliance: "“%@” certificate is not standards compliant"
            case .trust: "“%@” certificate is not trusted"
            case .name: "“%@” certificate name does not match input"
            case .expired: "“%@” certificate is expired"
            }
        }
    }

    /// The check that failed.
    let check: Check
    /// The index in the built chain of the certificate it failed for.
    let index: Int

    /// Apple's `OSStatus` for the check.
    var status: OSStatus {
        switch check {
        case .criticalExtensions: errSecUnknownCriticalExtensionFlag
        case .basicCertificateProcessing: errSecInvalidCertificateRef
        case .basicConstraintsCA: errSecNoBasicConstraintsCA
        case .anchorTrusted: errSecNotTrusted
        case .missingIntermediate: errSecCreateChainFailed
        case .sslHostname: errSecHostNameMismatch
        case .temporalValidity, .validRoot: errSecCertificateExpired
        }
    }

    /// Apple's subtype of the check.
    var subtype: Subtype {
        switch check {
        case .criticalExtensions, .basicCertificateProcessing, .basicConstraintsCA: .compliance
        case .anchorTrusted, .missingIntermediate: .trust
        case .sslHostname: .name
        case .temporalValidity, .validRoot: .expired
        }
    }

    /// Apple's text for the check (the detailed error lists them per certificate).
    var detail: String {
        switch check {
        case .criticalExtensions: "Found unknown critical extensions"
        case .basicCertificateProcessing: "Certificate is not standards compliant"
        case .basicConstraintsCA: "Non-CA certificate used as a CA"
        case .anchorTrusted: "Root is not trusted"
        case .missingIntermediate: "Unable to build chain to root (possible missing intermediate)"
        case .sslHostname: "SSL hostname does not match name(s) in certificate"
        case .temporalValidity: "Certificate is not temporally valid"
        case .validRoot: "Root is not temporally valid"
        }
    }
}
#endif
