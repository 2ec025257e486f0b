#if !canImport(Darwin)
/// One BER/DER element of PKCS#12 input: its identifier octet and its content octets.
///
/// PKCS#12 files are BER: besides DER (what OpenSSL writes) they may use indefinite lengths and constructed
/// OCTET STRINGs (Windows, Java). This reader accepts both, with single-octet tags only (tag numbers below 31,
/// all PKCS#12 needs) and a nesting limit so that hostile input cannot exhaust the stack.
struct BERElement {
    /// The identifier octet (class, constructed bit, tag number).
    let tag: UInt8
    /// The content octets; for an indefinite length, without the end-of-contents octets.
    let content: ArraySlice<UInt8>
    /// The whole encoding: identifier, length and content octets.
    let encoding: ArraySlice<UInt8>

    /// The deepest nesting of indefinite-length elements accepted.
    static let maximumDepth = 32

    /// Whether the constructed bit is set.
    var isConstructed: Bool { tag & 0x20 != 0 }

    /// Reads consecutive elements that cover `bytes` exactly.
    ///
    /// - Throws: `PKCS12Error.malformed` on truncated or invalid encodings.
    static func elements(_ bytes: ArraySlice<UInt8>) throws -> [BERElement] {
        var result: [BERElement] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            result.append(try read(bytes, at: &index, depth: 0))
        }
        return result
    }

    /// Reads the single element `bytes` consist of.
    static func single(_ bytes: ArraySlice<UInt8>) throws -> BERElement {
        var index = bytes.startIndex
        let element = try read(bytes, at: &index, depth: 0)
        guard index == bytes.endIndex else { throw PKCS12Error.malformed("Trailing bytes after an element.") }
        return element
    }

    private static func read(_ bytes: ArraySlice<UInt8>, at index: inout Int, depth: Int) throws -> BERElement {
        guard depth <= maximumDepth else { throw PKCS12Error.malformed("Elements are nested too deeply.") }
        guard index < bytes.endIndex else { throw PKCS12Error.malformed("Truncated element.") }
        let start = index
        let tag = bytes[index]
        guard tag & 0x1F != 0x1F else { throw PKCS12Error.malformed("Multi-octet tags are not supported.") }
        index += 1
        guard index < bytes.endIndex else { throw PKCS12Error.malformed("Truncated length.") }
        let first = bytes[index]
        index += 1
        if first == 0x80 {
            guard tag & 0x20 != 0 else { throw PKCS12Error.malformed("Indefinite length on a primitive element.") }
            let contentStart = index
            while true {
                guard index + 1 < bytes.endIndex else { throw PKCS12Error.malformed("Missing end-of-contents.") }
                if bytes[index] == 0, bytes[index + 1] == 0 { break }
                _ = try read(bytes, at: &index, depth: depth + 1)
            }
            let element = BERElement(
                tag: tag,
                content: bytes[contentStart..<index],
                encoding: bytes[start..<index + 2]
            )
            index += 2
            return element
        }
        var length = Int(first)
        if first > 0x80 {
            let count = Int(first & 0x7F)
            guard count <= 4, count <= bytes.endIndex - index else { throw PKCS12Error.malformed("Bad length.") }
            length = 0
            for byte in bytes[index..<index + count] { length = length << 8 | Int(byte) }
            index += count
        }
        guard length <= bytes.endIndex - index else { throw PKCS12Error.malformed("Truncated content.") }
        let element = BERElement(
            tag: tag,
            content: bytes[index..<index + length],
            encoding: bytes[start..<index + length]
        )
        index += length
        return element
    }

    /// The elements inside this constructed element.
    func children() throws -> [BERElement] {
        guard isConstructed else { throw PKCS12Error.malformed("Expected a constructed element.") }
        return try BERElement.elements(content)
    }

    /// The elements of this SEQUENCE.
    func sequence() throws -> [BERElement] {
        guard tag == 0x30 else { throw PKCS12Error.malformed("Expected a SEQUENCE.") }
        return try children()
    }

    /// The elements of this SET.
    func set() throws -> [BERElement] {
        guard tag == 0x31 else { throw PKCS12Error.malformed("Expected a SET.") }
        return try children()
    }

    /// The OBJECT IDENTIFIER's content octets.
    func objectIdentifier() throws -> [UInt8] {
        guard tag == 0x06, !content.isEmpty else { throw PKCS12Error.malformed("Expected an OBJECT IDENTIFIER.") }
        return Array(content)
    }

    /// The value of a non-negative INTEGER that fits in 31 bits.
    func smallInteger() throws -> Int {
        guard tag == 0x02, !content.isEmpty, content.first.map({ $0 & 0x80 == 0 }) == true else {
            throw PKCS12Error.malformed("Expected a non-negative INTEGER.")
        }
        let significant = content.drop { $0 == 0 }
        guard significant.count <= 4 else { throw PKCS12Error.unsupported("INTEGER too large.") }
        var value = 0
        for byte in significant { value = value << 8 | Int(byte) }
        guard value <= Int(Int32.max) else { throw PKCS12Error.unsupported("INTEGER too large.") }
        return value
    }

    /// The octets of an OCTET STRING, primitive or constructed, under `primitiveTag` (0x04 unless implicitly
    /// tagged).
    func octets(primitiveTag: UInt8 = 0x04) throws -> [UInt8] {
        if tag == primitiveTag { return Array(content) }
        guard tag == primitiveTag | 0x20 else { throw PKCS12Error.malformed("Expected an OCTET STRING.") }
        var result: [UInt8] = []
        for segment in try children() { result += try segment.octets() }
        return result
    }

    /// The single element inside this `[number]` EXPLICIT context-specific tag.
    func explicit(_ number: UInt8) throws -> BERElement {
        guard tag == 0xA0 | number else { throw PKCS12Error.malformed("Expected an explicit context tag.") }
        let inner = try children()
        guard inner.count == 1 else { throw PKCS12Error.malformed("An explicit tag holds one element.") }
        return inner[0]
    }
}

/// An X.509 `AlgorithmIdentifier`: an OID and its optional parameters.
struct AlgorithmIdentifier {
    /// The algorithm's OID content octets.
    let oid: [UInt8]
    /// The parameters, absent or any element (often NULL).
    let parameters: BERElement?

    /// Reads an `AlgorithmIdentifier` SEQUENCE.
    init(_ element: BERElement) throws {
        let parts = try element.sequence()
        guard let first = parts.first, parts.count <= 2 else {
            throw PKCS12Error.malformed("Bad AlgorithmIdentifier.")
        }
        oid = try first.objectIdentifier()
        parameters = parts.count == 2 ? parts[1] : nil
    }
}
#endif
