#if !canImport(Darwin)
import SwiftASN1

/// The raw DER of an X.509 `Name`, read with swift-asn1: the attribute values Apple's calls show and the
/// normalized form the keychain stores in `kSecAttrSubject` and `kSecAttrIssuer` (docs/apple-semantics.md §2.1).
///
/// swift-certificates' `DistinguishedName` keeps the values but re-sorts the attributes of a multi-valued RDN
/// when it serializes them; the keychain's bytes follow the certificate's own order, so they are taken from the
/// parsed nodes.
struct CertificateName {
    /// The Name's SEQUENCE node.
    let node: ASN1Node

    /// `commonName` (2.5.4.3).
    static let commonName: ASN1ObjectIdentifier = [2, 5, 4, 3]

    /// Wraps a parsed Name.
    init(_ node: ASN1Node) {
        self.node = node
    }

    /// The (type, text) pairs of the Name's attributes whose value is a string type, in order.
    var attributes: [(type: ASN1ObjectIdentifier, value: String)] {
        var result: [(type: ASN1ObjectIdentifier, value: String)] = []
        for set in Self.children(node) {
            for attribute in Self.children(set) {
                let pair = Array(Self.children(attribute))
                guard pair.count == 2, let type = try? ASN1ObjectIdentifier(derEncoded: pair[0]),
                    let value = Self.text(pair[1])
                else { continue }
                result.append((type, value))
            }
        }
        return result
    }

    /// Apple's normalized Name contents (the SETs without the enclosing SEQUENCE): `PrintableString` values
    /// upper-cased (ASCII), trimmed, inner runs of blanks collapsed; every enclosing length re-encoded; other
    /// values, and elements that are not attribute pairs, kept as they are.
    var normalizedContents: [UInt8] {
        var serializer = DER.Serializer()
        for set in Self.children(node) {
            guard set.identifier == .set, case .constructed(let attributes) = set.content else {
                serializer.serializeRawBytes(set.encodedBytes)
                continue
            }
            serializer.appendConstructedNode(identifier: .set) { setSerializer in
                for attribute in attributes {
                    let pair = Array(Self.children(attribute))
                    guard attribute.identifier == .sequence, pair.count == 2 else {
                        setSerializer.serializeRawBytes(attribute.encodedBytes)
                        continue
                    }
                    setSerializer.appendConstructedNode(identifier: .sequence) { pairSerializer in
                        pairSerializer.serializeRawBytes(pair[0].encodedBytes)
                        if pair[1].identifier == .printableString, case .primitive(let value) = pair[1].content {
                            pairSerializer.appendPrimitiveNode(identifier: .printableString) {
                                $0 += Self.normalizedPrintable(value)
                            }
                        } else {
                            pairSerializer.serializeRawBytes(pair[1].encodedBytes)
                        }
                    }
                }
            }
        }
        return serializer.serializedBytes
    }

    /// The normalized contents of `bytes` when they are one whole DER Name (a SEQUENCE of SETs); `nil` otherwise
    /// (for example for the contents form a `kSecAttrIssuer` query may already give).
    static func normalizedContents(ofEncodedName bytes: [UInt8]) -> [UInt8]? {
        guard let node = try? DER.parse(bytes), node.identifier == .sequence,
            children(node).allSatisfy({ $0.identifier == .set })
        else { return nil }
        return CertificateName(node).normalizedContents
    }

    /// The children of a constructed node; none for a primitive one.
    private static func children(_ node: ASN1Node) -> [ASN1Node] {
        guard case .constructed(let nodes) = node.content else { return [] }
        return Array(nodes)
    }

    /// The text of a string value: UTF8String, PrintableString, IA5String, TeletexString and VisibleString as
    /// UTF-8, BMPString as UTF-16BE; `nil` for other types.
    private static func text(_ value: ASN1Node) -> String? {
        guard value.identifier.tagClass == .universal, case .primitive(let bytes) = value.content else { return nil }
        switch value.identifier {
        case .utf8String, .printableString, .ia5String, .teletexString, .visibleString:
            return String(decoding: bytes, as: UTF8.self)
        case .bmpString:
            let units = stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map {
                UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
            }
            return String(decoding: units, as: UTF16.self)
        default:
            return nil
        }
    }

    /// A PrintableString's value as the keychain normalizes it.
    private static func normalizedPrintable(_ value: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        var pendingBlank = false
        for byte in value {
            if byte == 0x20 {
                pendingBlank = !result.isEmpty
                continue
            }
            if pendingBlank { result.append(0x20) }
            pendingBlank = false
            result.append(byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte)
        }
        return result
    }
}
#endif
