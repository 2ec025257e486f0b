#if !canImport(Darwin)
import SwiftASN1

/// An X.509 `AlgorithmIdentifier`: an OID and its optional parameters.
struct AlgorithmIdentifier {
    /// The algorithm's OID.
    let oid: ASN1ObjectIdentifier
    /// The parameters, absent or any element (often NULL).
    let parameters: ASN1Node?

    /// Reads an `AlgorithmIdentifier` SEQUENCE.
    ///
    /// - Throws: `PKCS12Error.malformed` when it is not one.
    init(_ node: ASN1Node) throws {
        let parts = try node.sequence()
        guard let first = parts.first, parts.count <= 2 else {
            throw PKCS12Error.malformed("Bad AlgorithmIdentifier.")
        }
        oid = try first.objectIdentifier()
        parameters = parts.count == 2 ? parts[1] : nil
    }
}
#endif
