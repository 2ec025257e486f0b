#if !canImport(Darwin)
import Foundation
import Latchkey

/// The Apple objects of identities the core found (the join itself is the core's, docs/apple-semantics.md §2.2).
enum IdentityItems {
    /// Where the certificate's DER travels inside a found identity; never returned to callers.
    static let certificateData = AttributeName.identityCertificate

    /// The `SecIdentity` of a found identity; `nil` when its parts do not form one.
    static func reference(for item: FoundItem) -> SecIdentity? {
        guard let der = item.attributes[certificateData]?.dataValue, let certificate = SecCertificate(der: der),
            let key = SecKey.fromStored(item)
        else { return nil }
        return SecIdentity(certificate: certificate, privateKey: key)
    }
}
#endif
