#if !canImport(Darwin)
import SwiftASN1

/// Reading PKCS#12's ASN.1 with swift-asn1.
///
/// PKCS#12 files are BER: besides DER (what OpenSSL writes) they may use indefinite lengths and constructed
/// OCTET STRINGs (Windows, Java), so they are parsed with `BER.parse`. Every failure becomes
/// `PKCS12Error.malformed`, which `SecPKCS12Import` reports as `errSecDecode` (or, for content decrypted
/// without a verified MAC, as a probable wrong passphrase).
enum PKCS12ASN1 {
    /// The single BER element `bytes` consist of.
    ///
    /// - Throws: `PKCS12Error.malformed` on truncated, invalid or too deeply nested encodings, or trailing bytes.
    static func parse(_ bytes: [UInt8]) throws -> ASN1Node {
        do {
            return try BER.parse(bytes)
        } catch {
            throw PKCS12Error.malformed("The input is not one BER element.")
        }
    }
}

extension ASN1Node {
    /// The elements inside this constructed element.
    func children() throws -> [ASN1Node] {
        guard case .constructed(let nodes) = content else {
            throw PKCS12Error.malformed("Expected a constructed element.")
        }
        return Array(nodes)
    }

    /// The elements of this SEQUENCE.
    func sequence() throws -> [ASN1Node] {
        guard identifier == .sequence else { throw PKCS12Error.malformed("Expected a SEQUENCE.") }
        return try children()
    }

    /// The elements of this SET.
    func set() throws -> [ASN1Node] {
        guard identifier == .set else { throw PKCS12Error.malformed("Expected a SET.") }
        return try children()
    }

    /// The OBJECT IDENTIFIER's value.
    func objectIdentifier() throws -> ASN1ObjectIdentifier {
        do {
            return try ASN1ObjectIdentifier(berEncoded: self)
        } catch {
            throw PKCS12Error.malformed("Expected an OBJECT IDENTIFIER.")
        }
    }

    /// The value of a non-negative INTEGER that fits in 31 bits.
    func smallInteger() throws -> Int {
        let value: Int
        do {
            value = try Int(berEncoded: self)
        } catch {
            throw PKCS12Error.malformed("Expected an INTEGER that fits in a machine word.")
        }
        guard value >= 0 else { throw PKCS12Error.malformed("Expected a non-negative INTEGER.") }
        guard value <= Int(Int32.max) else { throw PKCS12Error.unsupported("INTEGER too large.") }
        return value
    }

    /// The octets of an OCTET STRING, primitive or constructed, under `identifier` (`.octetString` unless
    /// implicitly tagged).
    func octets(_ identifier: ASN1Identifier = .octetString) throws -> [UInt8] {
        do {
            return Array(try ASN1OctetString(berEncoded: self, withIdentifier: identifier).bytes)
        } catch {
            throw PKCS12Error.malformed("Expected an OCTET STRING.")
        }
    }

    /// The single element inside this `[number]` EXPLICIT context-specific tag.
    func explicit(_ number: UInt) throws -> ASN1Node {
        guard identifier == ASN1Identifier(tagWithNumber: number, tagClass: .contextSpecific) else {
            throw PKCS12Error.malformed("Expected an explicit context tag.")
        }
        let inner = try children()
        guard inner.count == 1 else { throw PKCS12Error.malformed("An explicit tag holds one element.") }
        return inner[0]
    }
}
#endif
