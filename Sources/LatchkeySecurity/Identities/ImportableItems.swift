#if !canImport(Darwin)
import Crypto
import Foundation
import Latchkey

/// Certificates, private keys and PKCS#12 identities read from files, as the core's typed items: the parsing
/// behind `latchkey import`, `add-certificates` and `find-identity`, for faces that use the typed core and never
/// the `[String: Any]` one.
///
/// The items carry the attributes `SecItemAdd` with `kSecValueRef` derives (docs/apple-semantics.md §2.1), so an
/// item imported by the CLI is found by the Apple face and the reverse.
package enum ImportableItems {
    /// What one file held, ready to add.
    package struct Contents {
        /// Certificate items (their DER is the secret).
        package var certificates: [NewItem] = []
        /// Private key items.
        package var keys: [NewItem] = []
        /// How many certificate and key pairs form identities.
        package var identities = 0

        /// Nothing yet.
        package init() {}
    }

    /// A certificate's summary, for listing: SHA-1 of its DER and its subject summary (the last common name).
    package struct CertificateSummary {
        /// SHA-1 of the DER, upper-case hex (as `security find-identity` prints it).
        package let sha1: String
        /// The subject's last common name, else its first attribute value.
        package let name: String?
        /// SHA-1 of the subject public key bits (`kSecAttrPublicKeyHash`, a private key's application label).
        package let publicKeyHash: Data
        /// Whether the certificate is within its validity period now; `false` also when swift-certificates could
        /// not read its dates (an algorithm it does not use). Trust (chain, revocation) is not evaluated.
        package let isWithinValidityPeriod: Bool
    }

    /// The certificate item for `der`, labelled with its subject summary (or `label`).
    ///
    /// - Throws: `decode` (-26275) when `der` is not one X.509 certificate.
    package static func certificate(der: Data, label: String? = nil) throws -> NewItem {
        guard let certificate = SecCertificate(der: der) else {
            throw KeychainError(.decode, "The data is not an X.509 certificate.")
        }
        return try item(.certificate, certificate, label: label)
    }

    /// The private key item for a PKCS#8 `PrivateKeyInfo` (EC P-256/384/521 or RSA of 2048 bits or more).
    ///
    /// - Throws: `decode` (-26275) for other encodings or key types.
    package static func privateKey(pkcs8 der: Data, label: String? = nil) throws -> NewItem {
        let key: SecKey
        do {
            key = try PKCS8.privateKey([UInt8](der))
        } catch let error as PKCS12Error {
            throw KeychainError(.decode, "The private key cannot be read: \(error.reason)")
        }
        return try item(.key, key, label: label)
    }

    /// The certificates and private keys of a PKCS#12 file; each private key with a certificate in the file forms
    /// an identity, as `SecPKCS12Import` pairs them.
    ///
    /// - Throws: `authFailed` (-25293) for a wrong passphrase, `decode` (-26275) for a file that does not parse.
    package static func pkcs12(_ data: Data, passphrase: String) throws -> Contents {
        let bags: [SafeBag]
        do {
            bags = try PFXParser.bags(of: [UInt8](data), passphrase: passphrase)
        } catch let error as PKCS12Error {
            throw KeychainError(KeychainError.Code(rawValue: error.status), "PKCS#12: \(error.reason)")
        }
        var contents = Contents()
        var added: Set<Data> = []
        for identity in ImportedIdentity.pair(bags) {
            contents.identities += 1
            contents.keys.append(try item(.key, identity.identity.privateKey, label: identity.label))
            for certificate in identity.chain where added.insert(certificate.der).inserted {
                let label = certificate == identity.identity.certificate ? identity.label : nil
                contents.certificates.append(try item(.certificate, certificate, label: label))
            }
        }
        for bag in bags {
            if case .certificate(let certificate) = bag.value, added.insert(certificate.der).inserted {
                contents.certificates.append(try item(.certificate, certificate, label: bag.friendlyName))
            }
        }
        return contents
    }

    /// The summary of a certificate's DER; `nil` when it is not a certificate.
    package static func summary(der: Data) -> CertificateSummary? {
        guard let certificate = SecCertificate(der: der) else { return nil }
        let digest = Insecure.SHA1.hash(data: der).map { String(format: "%02X", $0) }.joined()
        return CertificateSummary(
            sha1: digest,
            name: certificate.subjectSummary,
            publicKeyHash: certificate.publicKeyHash,
            isWithinValidityPeriod: certificate.certificate.map {
                $0.notValidBefore <= Date() && Date() <= $0.notValidAfter
            } ?? false
        )
    }

    /// `reference` as an item of `itemClass`, translated as `SecItemAdd` translates `kSecValueRef`.
    private static func item(_ itemClass: ItemClass, _ reference: AnyObject, label: String?) throws -> NewItem {
        let dictionary = NSMutableDictionary()
        dictionary[NSString(string: "class")] = NSString(string: itemClass.rawValue)
        dictionary[NSString(string: "v_Ref")] = reference
        if let label { dictionary[NSString(string: "labl")] = NSString(string: label) }
        let request = ItemRequest.parse(dictionary, for: .add)
        if let error = request.clientError ?? request.parseError { throw error }
        var attributes = request.attributes
        if request.synchronizableAny { attributes[.synchronizable] = nil }
        return NewItem(itemClass, attributes: attributes, data: request.secret.map { SecretData($0) })
    }
}
#endif
