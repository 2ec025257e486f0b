#if !canImport(Darwin)
import Foundation
import SwiftASN1

/// One PKCS#12 SafeBag this import uses: a private key or a certificate, with its bag attributes.
struct SafeBag {
    /// What the bag holds.
    enum Value {
        case privateKey(SecKey)
        case certificate(SecCertificate)
    }

    /// The key or certificate.
    let value: Value
    /// The `friendlyName` attribute (PKCS#9, a BMPString), if present.
    let friendlyName: String?
    /// The `localKeyID` attribute (PKCS#9, an OCTET STRING), if present.
    let localKeyID: Data?

    /// Reads `friendlyName` and `localKeyID` from a SafeBag's `bagAttributes` SET; other attributes are ignored.
    static func attributes(_ node: ASN1Node?) throws -> (friendlyName: String?, localKeyID: Data?) {
        guard let node else { return (nil, nil) }
        var friendlyName: String?
        var localKeyID: Data?
        for attribute in try node.set() {
            let parts = try attribute.sequence()
            guard parts.count == 2 else { throw PKCS12Error.malformed("Bad bag attribute.") }
            let oid = try parts[0].objectIdentifier()
            let values = try parts[1].set()
            switch oid {
            case PKCS12OID.friendlyName:
                guard values.count == 1 else { throw PKCS12Error.malformed("friendlyName holds one value.") }
                friendlyName = try bmpString(values[0])
            case PKCS12OID.localKeyID:
                guard values.count == 1 else { throw PKCS12Error.malformed("localKeyID holds one value.") }
                localKeyID = Data(try values[0].octets())
            default:
                continue
            }
        }
        return (friendlyName, localKeyID)
    }

    /// The text of a BMPString (UTF-16BE).
    private static func bmpString(_ node: ASN1Node) throws -> String {
        let bytes = try node.octets(.bmpString)
        guard bytes.count % 2 == 0 else { throw PKCS12Error.malformed("Odd BMPString length.") }
        let units = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        return String(decoding: units, as: UTF16.self)
    }
}
#endif
