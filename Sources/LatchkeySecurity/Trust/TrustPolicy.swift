#if !canImport(Darwin)
import Foundation
import SwiftASN1
@_spi(DisableValidityCheck) import X509

/// The `VerifierPolicy` an evaluation hands swift-certificates' `Verifier`: the checks of the trust object's
/// `SecPolicy`s, each failure recorded as the `TrustProblem` Apple would report.
///
/// RFC 5280 path rules come from `RFC5280Policy` with its own validity check turned off: validity is checked
/// here, per certificate, so an expired certificate is told apart from a compliance failure and located in
/// the chain. Host names come from `ServerIdentityPolicy`, one per SSL policy that names a host.
struct TrustPolicy: VerifierPolicy, Sendable {
    /// The extensions understood: RFC 5280's (basic constraints, name constraints, key usage), plus the subject
    /// alternative name and the extended key usage, which Apple's evaluation also accepts as critical.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] =
        RFC5280Policy.withValidityCheckDisabled().verifyingCriticalExtensions + [
            .X509ExtensionID.subjectAlternativeName, .X509ExtensionID.extendedKeyUsage,
        ]

    private let rfc5280 = RFC5280Policy.withValidityCheckDisabled()
    private var identities: [ServerIdentityPolicy]
    /// The date every certificate must be valid on.
    let validationTime: Date

    /// The checks of `policies` on `validationTime`.
    init(policies: [SecPolicy], validationTime: Date) {
        self.validationTime = validationTime
        identities = policies.compactMap { policy in
            guard case .ssl(_, let hostname?) = policy.kind else { return nil }
            return Self.isIPAddress(hostname)
                ? ServerIdentityPolicy(serverHostname: nil, serverIP: hostname)
                : ServerIdentityPolicy(serverHostname: hostname, serverIP: nil)
        }
    }

    /// Meets the policy when no problem is found.
    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        let problems = problems(in: chain)
        if problems.isEmpty { return .meetsPolicy }
        let text = problems.map { "\($0.check) at \($0.index)" }.joined(separator: ", ")
        return .failsToMeetPolicy(reason: "SecTrust policy: \(text)")
    }

    /// Every problem of a chain that ends in a trusted root.
    ///
    /// An RFC 5280 failure is reported for the leaf (swift-certificates does not say which certificate broke
    /// the rule).
    mutating func problems(in chain: UnverifiedCertificateChain) -> [TrustProblem] {
        var problems: [TrustProblem] = []
        if case .failsToMeetPolicy = rfc5280.chainMeetsPolicyRequirements(chain: chain) {
            // Located when it is the commonest break: an issuer that is not a CA; else reported for the leaf.
            let notCA = chain.indices.dropFirst().filter { !Self.isCertificateAuthority(chain[$0]) }
            problems += notCA.map { TrustProblem(check: .basicConstraintsCA, index: $0) }
            if notCA.isEmpty { problems.append(TrustProblem(check: .basicCertificateProcessing, index: 0)) }
        }
        for index in identities.indices {
            if case .failsToMeetPolicy = identities[index].chainMeetsPolicyRequirements(chain: chain) {
                problems.append(TrustProblem(check: .sslHostname, index: 0))
                break
            }
        }
        for (index, certificate) in chain.enumerated() where !isValid(certificate) {
            problems.append(
                TrustProblem(check: index == chain.count - 1 ? .validRoot : .temporalValidity, index: index)
            )
        }
        return problems
    }

    /// Whether `certificate` is valid on the validation time (its dates bound it inclusively).
    func isValid(_ certificate: Certificate) -> Bool {
        certificate.notValidBefore <= validationTime && validationTime <= certificate.notValidAfter
    }

    /// Whether `certificate`'s basic constraints make it a CA (an X.509 v1 certificate, which has no
    /// extensions, counts as one, as RFC 5280 allows for trust anchors and `RFC5280Policy` tolerates).
    static func isCertificateAuthority(_ certificate: Certificate) -> Bool {
        if certificate.version == .v1 { return true }
        guard case .isCertificateAuthority = try? certificate.extensions.basicConstraints else { return false }
        return true
    }

    /// Whether `certificate` marks critical an extension this policy does not understand.
    func hasUnknownCriticalExtension(_ certificate: Certificate) -> Bool {
        certificate.extensions.contains { $0.critical && !verifyingCriticalExtensions.contains($0.oid) }
    }

    /// Whether `host` is an IPv4 or IPv6 address literal (then the SSL policy matches IP address names).
    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
#endif
