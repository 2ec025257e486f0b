#if !canImport(Darwin)
import Foundation
import SwiftASN1
import X509

/// One evaluation of a trust object's settings with swift-certificates' `Verifier`.
///
/// 1. The certificates are parsed by `X509` (leaf first; intermediates in any order).
/// 2. Roots: the caller's anchors, plus the system's (`SystemTrustRoots`) unless the anchors are exclusive.
/// 3. `Verifier` builds candidate chains from the leaf through the intermediates to a root, checking every
///    signature, and applies `TrustPolicy`; the first chain that passes is the result.
/// 4. When a chain reached a root but failed the policy, that chain's problems are reported (expired, wrong
///    host, not standards compliant). When no chain reached a root, the best path is built here from the
///    leaf through the given certificates: it ends in a self-signed certificate nobody trusts
///    (`errSecNotTrusted`) or in a certificate whose issuer is unknown (`errSecCreateChainFailed`).
struct TrustEvaluation: Sendable {
    /// What to evaluate.
    let settings: SecTrust.Settings

    /// Evaluates the settings.
    func run() async -> TrustResult {
        let validationTime = settings.verifyDate ?? Date()
        var known: [Certificate: SecCertificate] = [:]
        let inputs = settings.certificates.compactMap { certificate in
            Self.parse(certificate).map { parsed in
                known[parsed] = known[parsed] ?? certificate
                return parsed
            }
        }
        let anchors = (settings.anchors ?? []).compactMap { certificate in
            Self.parse(certificate).map { parsed in
                known[parsed] = known[parsed] ?? certificate
                return parsed
            }
        }
        guard let leafInput = settings.certificates.first else {
            return TrustResult(chain: [], failure: TrustFailure(problems: [], summaries: []))
        }
        guard let leaf = Self.parse(leafInput) else {
            let problem = TrustProblem(check: .basicCertificateProcessing, index: 0)
            return TrustResult(
                chain: [leafInput],
                failure: TrustFailure(problems: [problem], summaries: [Self.summary(of: leafInput)])
            )
        }
        let intermediates = Array(inputs.dropFirst())
        let roots =
            settings.anchorsOnly ? CertificateStore(anchors) : SystemTrustRoots.store.appending(contentsOf: anchors)
        let policy = TrustPolicy(policies: settings.policies, validationTime: validationTime)

        var verifier = Verifier(rootCertificates: roots) { policy }
        let outcome = await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates))

        switch outcome {
        case .validCertificate(let chain):
            return TrustResult(chain: Self.secCertificates(Array(chain), known: known), failure: nil)
        case .couldNotValidate(let failures):
            if let failure = failures.first {
                var checks = policy
                var problems = checks.problems(in: failure.chain)
                if problems.isEmpty { problems = [TrustProblem(check: .basicCertificateProcessing, index: 0)] }
                return Self.result(chain: Array(failure.chain), problems: problems, known: known)
            }
            let system = settings.anchorsOnly ? [] : SystemTrustRoots.certificates
            let path = Self.bestPath(from: leaf, through: intermediates + anchors + system)
            var problems: [TrustProblem] = []
            let top = path.chain[path.chain.count - 1]
            let trustedTop = anchors.contains(top) || (!settings.anchorsOnly && SystemTrustRoots.set.contains(top))
            // A path that reaches a trusted root failed for another reason (a critical extension `Verifier`
            // does not understand, checked below), not for its root.
            if path.end == .missingIntermediate || !trustedTop {
                problems.append(TrustProblem(check: path.end, index: path.chain.count - 1))
            }
            for (index, certificate) in path.chain.enumerated() {
                if policy.hasUnknownCriticalExtension(certificate) {
                    problems.append(TrustProblem(check: .criticalExtensions, index: index))
                }
                if !policy.isValid(certificate) {
                    problems.append(TrustProblem(check: .temporalValidity, index: index))
                }
            }
            if problems.isEmpty { problems = [TrustProblem(check: .basicCertificateProcessing, index: 0)] }
            return Self.result(chain: path.chain, problems: problems, known: known)
        }
    }

    /// The failed result for `chain` and its `problems`.
    private static func result(
        chain: [Certificate],
        problems: [TrustProblem],
        known: [Certificate: SecCertificate]
    ) -> TrustResult {
        let certificates = secCertificates(chain, known: known)
        return TrustResult(
            chain: certificates,
            failure: TrustFailure(problems: problems, summaries: certificates.map(summary(of:)))
        )
    }

    /// The path from `leaf` as far as `candidates` reach, each certificate's issuer found by name and
    /// signature, and how it ends: at a self-signed certificate (`anchorTrusted`: it is not a trusted root, or
    /// `Verifier` would have found the chain), or at a certificate whose issuer is not among the candidates
    /// (`missingIntermediate`). Apple's trustd decides the same way, by whether the path's last certificate is
    /// self-signed, and reports either problem for that last certificate.
    static func bestPath(
        from leaf: Certificate,
        through candidates: [Certificate]
    ) -> (chain: [Certificate], end: TrustProblem.Check) {
        var chain = [leaf]
        var tip = leaf
        while true {
            if tip.issuer == tip.subject, tip.publicKey.isValidSignature(tip.signature, for: tip) {
                return (chain, .anchorTrusted)
            }
            let issuer = candidates.first { candidate in
                candidate.subject == tip.issuer && !chain.contains(candidate)
                    && candidate.publicKey.isValidSignature(tip.signature, for: tip)
            }
            guard let issuer else { return (chain, .missingIntermediate) }
            chain.append(issuer)
            tip = issuer
        }
    }

    /// `certificate` parsed by `X509`; `nil` when it does not parse there.
    static func parse(_ certificate: SecCertificate) -> Certificate? {
        let der = SecCertificateCopyData(certificate) as Data
        return try? Certificate(derEncoded: Array(der))
    }

    /// The `SecCertificate`s of `chain`: the caller's own objects where the certificate came from them, new
    /// ones for the system's roots.
    static func secCertificates(_ chain: [Certificate], known: [Certificate: SecCertificate]) -> [SecCertificate] {
        chain.compactMap { certificate in
            if let mine = known[certificate] { return mine }
            var serializer = DER.Serializer()
            guard (try? serializer.serialize(certificate)) != nil else { return nil }
            return SecCertificateCreateWithData(nil, NSData(data: Data(serializer.serializedBytes)))
        }
    }

    /// Apple's subject summary of `certificate` (what its trust errors name).
    static func summary(of certificate: SecCertificate) -> String {
        SecCertificateCopySubjectSummary(certificate).map { String($0) } ?? ""
    }
}
#endif
