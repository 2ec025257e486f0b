#if !canImport(Darwin)
import Foundation

/// A minimal DER tag-length-value reader and writer for the raw fields Apple's keychain derives from a
/// certificate (docs/apple-semantics.md §2.1), where the exact bytes matter.
enum DERReader {
    /// One element: its tag and its content octets.
    struct Element {
        let tag: UInt8
        let content: [UInt8]
    }

    /// Splits `bytes` into consecutive elements; `nil` unless they cover `bytes` exactly.
    static func elements(_ bytes: ArraySlice<UInt8>) -> [Element]? {
        var result: [Element] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let tag = bytes[index]
            index += 1
            guard index < bytes.endIndex else { return nil }
            var length = Int(bytes[index])
            index += 1
            if length >= 0x80 {
                let count = length & 0x7F
                guard count >= 1, count <= 4, index + count <= bytes.endIndex else { return nil }
                length = 0
                for byte in bytes[index..<index + count] { length = length << 8 | Int(byte) }
                index += count
            }
            guard length <= bytes.endIndex - index else { return nil }
            result.append(Element(tag: tag, content: Array(bytes[index..<index + length])))
            index += length
        }
        return result
    }

    /// The single element `bytes` consist of.
    static func single(_ bytes: [UInt8]) -> Element? {
        guard let list = elements(bytes[...]), list.count == 1 else { return nil }
        return list[0]
    }

    /// DER encoding of an element.
    static func encode(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var header: [UInt8] = [tag]
        let count = content.count
        if count < 0x80 {
            header.append(UInt8(count))
        } else {
            var lengthBytes: [UInt8] = []
            var remaining = count
            while remaining > 0 {
                lengthBytes.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            header.append(0x80 | UInt8(lengthBytes.count))
            header += lengthBytes
        }
        return header + content
    }

    /// The raw fields of a certificate's TBSCertificate.
    struct CertificateFields {
        /// The X.509 `version` field (0 for v1, 2 for v3).
        var version: Int
        var serialContent: [UInt8]
        var issuerContent: [UInt8]
        var subjectContent: [UInt8]
        var subjectPublicKey: [UInt8]
        /// The content of the public key's AlgorithmIdentifier OID (`rsaEncryption`, `id-ecPublicKey` ...).
        var publicKeyAlgorithm: [UInt8]
        /// The SubjectKeyIdentifier extension's key identifier, if present.
        var subjectKeyIdentifier: [UInt8]?
    }

    /// Reads serial number, issuer, subject and public key bits from certificate DER.
    static func certificateFields(_ der: [UInt8]) -> CertificateFields? {
        guard let certificate = single(der), certificate.tag == 0x30,
            let parts = elements(certificate.content[...]), let tbs = parts.first, tbs.tag == 0x30,
            var fields = elements(tbs.content[...])
        else { return nil }
        var version = 0
        if fields.first?.tag == 0xA0 {  // [0] EXPLICIT Version
            guard let inner = single(fields[0].content), inner.tag == 0x02, inner.content.count == 1 else { return nil }
            version = Int(inner.content[0])
            fields.removeFirst()
        }
        // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
        guard fields.count >= 6, fields[0].tag == 0x02, fields[2].tag == 0x30, fields[4].tag == 0x30,
            fields[5].tag == 0x30, let spki = elements(fields[5].content[...]), spki.count == 2,
            spki[1].tag == 0x03, !spki[1].content.isEmpty, spki[0].tag == 0x30,
            let algorithm = elements(spki[0].content[...])?.first, algorithm.tag == 0x06
        else { return nil }
        guard parts.count == 3, parts[1].tag == 0x30, parts[2].tag == 0x03,
            let validity = elements(fields[3].content[...]), validity.count == 2,
            elements(fields[2].content[...]) != nil, elements(fields[4].content[...]) != nil
        else { return nil }
        var subjectKeyIdentifier: [UInt8]?
        for field in fields.dropFirst(6) where field.tag == 0xA3 {
            guard let wrapper = single(field.content), wrapper.tag == 0x30,
                let extensions = elements(wrapper.content[...])
            else { return nil }
            for candidate in extensions {
                guard let parts = elements(candidate.content[...]), let oid = parts.first, let value = parts.last,
                    oid.tag == 0x06, value.tag == 0x04
                else { return nil }
                if oid.content == [0x55, 0x1D, 0x0E], let identifier = single(value.content), identifier.tag == 0x04 {
                    subjectKeyIdentifier = identifier.content
                }
            }
        }
        return CertificateFields(
            version: version,
            serialContent: fields[0].content,
            issuerContent: fields[2].content,
            subjectContent: fields[4].content,
            subjectPublicKey: Array(spki[1].content.dropFirst()),
            publicKeyAlgorithm: algorithm.content,
            subjectKeyIdentifier: subjectKeyIdentifier
        )
    }

    /// The (OID content, string value) pairs of a Name's contents, in order.
    static func nameAttributes(_ contents: [UInt8]) -> [(oid: [UInt8], value: String)] {
        var result: [(oid: [UInt8], value: String)] = []
        for set in elements(contents[...]) ?? [] {
            for attribute in elements(set.content[...]) ?? [] {
                guard let pair = elements(attribute.content[...]), pair.count == 2, pair[0].tag == 0x06 else {
                    continue
                }
                let value: String?
                switch pair[1].tag {
                case 0x0C, 0x13, 0x16, 0x14, 0x1A: value = String(decoding: pair[1].content, as: UTF8.self)
                case 0x1E:  // BMPString: UTF-16BE
                    var units: [UInt16] = []
                    var index = 0
                    while index + 1 < pair[1].content.count {
                        units.append(UInt16(pair[1].content[index]) << 8 | UInt16(pair[1].content[index + 1]))
                        index += 2
                    }
                    value = String(decoding: units, as: UTF16.self)
                default: value = nil
                }
                if let value { result.append((pair[0].content, value)) }
            }
        }
        return result
    }

    /// Apple's normalized Name contents
    /// (docs/apple-semantics.md §2.1): `PrintableString` values upper-cased (ASCII), trimmed,
    /// inner runs of blanks collapsed; every enclosing length re-encoded; other strings untouched.
    static func normalizedNameContents(_ contents: [UInt8]) -> [UInt8] {
        guard let sets = elements(contents[...]) else { return contents }
        var output: [UInt8] = []
        for set in sets {
            guard set.tag == 0x31, let attributes = elements(set.content[...]) else {
                output += encode(set.tag, set.content)
                continue
            }
            var setContent: [UInt8] = []
            for attribute in attributes {
                guard attribute.tag == 0x30, let pair = elements(attribute.content[...]), pair.count == 2 else {
                    setContent += encode(attribute.tag, attribute.content)
                    continue
                }
                var value = pair[1].content
                if pair[1].tag == 0x13 { value = normalizePrintable(value) }
                setContent += encode(0x30, encode(pair[0].tag, pair[0].content) + encode(pair[1].tag, value))
            }
            output += encode(0x31, setContent)
        }
        return output
    }

    /// The normalized contents of `bytes` when they are a whole DER Name (a SEQUENCE of SETs); `nil` otherwise.
    static func normalizedName(_ bytes: Data) -> [UInt8]? {
        guard bytes.first == 0x30, let name = single([UInt8](bytes)), let sets = elements(name.content[...]),
            sets.allSatisfy({ $0.tag == 0x31 })
        else { return nil }
        return normalizedNameContents(name.content)
    }

    private static func normalizePrintable(_ value: [UInt8]) -> [UInt8] {
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
