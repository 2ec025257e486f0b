#if !canImport(Darwin)
import Foundation

/// One identity found in a PKCS#12 file: a private key, its certificate, the issuer chain and the bag attributes.
struct ImportedIdentity {
    /// The certificate and private key.
    let identity: SecIdentity
    /// The leaf certificate, then the file's other certificates, issuers after their subjects where possible.
    let chain: [SecCertificate]
    /// The `friendlyName` of the key bag (or else of the certificate bag).
    let label: String?
    /// The `localKeyID` of the key bag (or else of the certificate bag).
    let keyID: Data?

    /// Pairs each private key of `bags` with the certificate holding its public key, in file order.
    ///
    /// A key matches a certificate whose `SHA-1(subjectPublicKey)` equals the key's application label; among
    /// several, the one with the same `localKeyID` wins, else the first. Keys without a certificate are dropped,
    /// as by Apple. The chain holds the leaf, then its issuers found among the certificates no key claimed
    /// (subject to issuer, stopping at a self-issued certificate), then the remaining unclaimed certificates in
    /// file order.
    static func pair(_ bags: [SafeBag]) -> [ImportedIdentity] {
        var keys: [(key: SecKey, bag: SafeBag)] = []
        var certificates: [(certificate: SecCertificate, bag: SafeBag)] = []
        for bag in bags {
            switch bag.value {
            case .privateKey(let key): keys.append((key, bag))
            case .certificate(let certificate):
                if !certificates.contains(where: { $0.certificate == certificate }) {
                    certificates.append((certificate, bag))
                }
            }
        }
        var leaves: [(key: SecKey, keyBag: SafeBag, certificate: SecCertificate, certificateBag: SafeBag)] = []
        for (key, keyBag) in keys {
            let label = key.applicationLabel
            let candidates = certificates.filter { publicKeyHash($0.certificate) == label }
            let sameKeyID = candidates.first { keyBag.localKeyID != nil && $0.bag.localKeyID == keyBag.localKeyID }
            guard let match = sameKeyID ?? candidates.first else { continue }
            leaves.append((key, keyBag, match.certificate, match.bag))
        }
        let claimed = Set(leaves.map(\.certificate))
        let others = certificates.map(\.certificate).filter { !claimed.contains($0) }
        return leaves.map { leaf in
            ImportedIdentity(
                identity: SecIdentity(certificate: leaf.certificate, privateKey: leaf.key),
                chain: chain(from: leaf.certificate, among: others),
                label: leaf.keyBag.friendlyName ?? leaf.certificateBag.friendlyName,
                keyID: leaf.keyBag.localKeyID ?? leaf.certificateBag.localKeyID
            )
        }
    }

    /// `leaf`, its issuers among `others` in order, then the rest of `others` in their order.
    static func chain(from leaf: SecCertificate, among others: [SecCertificate]) -> [SecCertificate] {
        var chain = [leaf]
        var remaining = others
        var current = leaf
        while !isSelfIssued(current),
            let index = remaining.firstIndex(where: { subject($0) == issuer(current) })
        {
            current = remaining.remove(at: index)
            chain.append(current)
        }
        return chain + remaining
    }

    private static func publicKeyHash(_ certificate: SecCertificate) -> Data {
        certificate.publicKeyHash
    }

    private static func subject(_ certificate: SecCertificate) -> [UInt8] {
        certificate.normalizedSubject
    }

    private static func issuer(_ certificate: SecCertificate) -> [UInt8] {
        certificate.normalizedIssuer
    }

    private static func isSelfIssued(_ certificate: SecCertificate) -> Bool {
        subject(certificate) == issuer(certificate)
    }
}
#endif
