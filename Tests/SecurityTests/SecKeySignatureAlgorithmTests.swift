#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing

private func sign(_ key: SecKey, _ algorithm: String, _ data: Data) -> (Data?, CFError?) {
    let (signature, error) = capturingCFError {
        SecKeyCreateSignature(key, SecKeyAlgorithm(rawValue: algorithm as CFString), data as CFData, $0)
    }
    return (signature.map { Data(referencing: $0) }, error)
}

private func verify(_ key: SecKey, _ algorithm: String, _ data: Data, _ signature: Data) -> (Bool, CFError?) {
    capturingCFError {
        SecKeyVerifySignature(
            key,
            SecKeyAlgorithm(rawValue: algorithm as CFString),
            data as CFData,
            signature as CFData,
            $0
        )
    }
}

private func code(_ error: CFError?) -> Int? { error.map { CFErrorGetCode($0) } }

private func generateEC(_ bits: Int) throws -> SecKey {
    let parameters: [String: Any] = [
        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: bits,
    ]
    return try #require(capturingCFError { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }.0)
}

private func external(_ key: SecKey) throws -> Data {
    Data(referencing: try #require(capturingCFError { SecKeyCopyExternalRepresentation(key, $0) }.0))
}

private func randomBytes(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
}

private func hexBytes(_ hex: String) -> Data {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
        index = next
    }
    return Data(bytes)
}

// MARK: DER for openssl

private func derLength(_ count: Int) -> [UInt8] {
    switch count {
    case ..<128: [UInt8(count)]
    case ..<256: [0x81, UInt8(count)]
    default: [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
    }
}

private func der(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + derLength(content.count) + content }

/// A DER INTEGER for an unsigned big-endian number.
private func derInteger(_ bytes: [UInt8]) -> [UInt8] {
    var trimmed = Array(bytes.drop { $0 == 0 })
    if trimmed.isEmpty || trimmed[0] & 0x80 != 0 { trimmed.insert(0, at: 0) }
    return der(0x02, trimmed)
}

private func pem(_ der: [UInt8], _ label: String) -> String {
    let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN \(label)-----\n\(body)\n-----END \(label)-----\n"
}

/// An EC key generated here, written as SEC 1 `key.pem` and SubjectPublicKeyInfo `pub.pem` for openssl.
private struct ECKeyFiles {
    let directory: URL
    let key: SecKey
    let publicKey: SecKey
    let fieldBytes: Int

    init(bits: Int) throws {
        directory = try makeTemporaryDirectory("seckey-sig-ec")
        key = try generateEC(bits)
        publicKey = try #require(SecKeyCopyPublicKey(key))
        fieldBytes = (bits + 7) / 8
        let raw = [UInt8](try external(key))
        let point = Array(raw[..<(1 + 2 * fieldBytes)])
        let scalar = Array(raw[(1 + 2 * fieldBytes)...])
        let curve: [UInt8] =
            switch bits {
            case 256: [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
            case 384: [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]
            default: [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23]
            }
        let sec1 = der(
            0x30,
            [0x02, 0x01, 0x01] + der(0x04, scalar) + der(0xA0, curve) + der(0xA1, der(0x03, [0x00] + point))
        )
        let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
        let spki = der(0x30, der(0x30, ecPublicKey + curve) + der(0x03, [0x00] + point))
        try pem(sec1, "EC PRIVATE KEY").write(to: file("key.pem"), atomically: true, encoding: .utf8)
        try pem(spki, "PUBLIC KEY").write(to: file("pub.pem"), atomically: true, encoding: .utf8)
    }

    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }
}

/// An RSA key made by `openssl genrsa` (`key.pem`, `pub.pem`), imported here from its PKCS#1 DER.
private struct RSAKeyFiles {
    let directory: URL
    let key: SecKey
    let publicKey: SecKey
    /// The modulus, big-endian, block-size bytes.
    let modulus: [UInt8]

    init(bits: Int = 2048) throws {
        directory = try makeTemporaryDirectory("seckey-sig-rsa")
        #expect(try runTool(["openssl", "genrsa", "-out", "key.pem", String(bits)], in: directory) == 0)
        let convert = ["openssl", "rsa", "-in", "key.pem", "-outform", "DER", "-traditional", "-out", "key.der"]
        #expect(try runTool(convert, in: directory) == 0)
        #expect(try runTool(["openssl", "rsa", "-in", "key.pem", "-pubout", "-out", "pub.pem"], in: directory) == 0)
        let pkcs1 = try Data(contentsOf: directory.appendingPathComponent("key.der"))
        let attributes = [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPrivate]
        key = try #require(
            capturingCFError { SecKeyCreateWithData(pkcs1 as CFData, attributes as CFDictionary, $0) }.0
        )
        publicKey = try #require(SecKeyCopyPublicKey(key))
        // RSAPrivateKey ::= SEQUENCE { version INTEGER, modulus INTEGER, ... }: skip the SEQUENCE and version.
        let bytes = [UInt8](pkcs1)
        var offset = 1 + Self.lengthFieldSize(bytes, 1) + 3
        #expect(bytes[offset] == 0x02)
        offset += 1
        let length = Self.lengthValue(bytes, offset)
        offset += Self.lengthFieldSize(bytes, offset)
        let blockSize = SecKeyGetBlockSize(key)
        modulus = Array(bytes[offset..<(offset + length)].suffix(blockSize))
    }

    private static func lengthFieldSize(_ bytes: [UInt8], _ offset: Int) -> Int {
        bytes[offset] < 0x80 ? 1 : 1 + Int(bytes[offset] & 0x7F)
    }

    private static func lengthValue(_ bytes: [UInt8], _ offset: Int) -> Int {
        guard bytes[offset] >= 0x80 else { return Int(bytes[offset]) }
        return bytes[(offset + 1)...(offset + Int(bytes[offset] & 0x7F))].reduce(0) { $0 << 8 | Int($1) }
    }

    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }
}

/// The digest `openssl dgst` computes (an independent implementation).
private func opensslDigest(_ data: Data, _ hash: String, in directory: URL) throws -> Data {
    let input = directory.appendingPathComponent("digest-input.bin")
    try data.write(to: input)
    #expect(
        try runTool(
            ["openssl", "dgst", "-\(hash.lowercased())", "-binary", "-out", "digest.bin", "digest-input.bin"],
            in: directory
        ) == 0
    )
    return try Data(contentsOf: directory.appendingPathComponent("digest.bin"))
}

private let hashLengths = ["SHA1": 20, "SHA224": 28, "SHA256": 32, "SHA384": 48, "SHA512": 64]
private let pssSuffixes = ["SHA1": "20", "SHA224": "24", "SHA256": "32", "SHA384": "48", "SHA512": "64"]
private let hashNames = ["SHA1", "SHA224", "SHA256", "SHA384", "SHA512"]

/// One algorithm, the key it runs on, and what to sign with it.
struct SignatureAlgorithmCase: Sendable, CustomTestStringConvertible {
    let algorithm: String
    let isRSA: Bool
    /// The length of the input to sign: `nil` for a message of any length.
    let inputLength: Int?
    var testDescription: String { algorithm }
}

private let sharedRSAKey: SecKey? = {
    let parameters: [String: Any] = [
        kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
    ]
    return SecKeyCreateRandomKey(parameters as CFDictionary, nil)
}()

struct SecKeySignatureAlgorithmTests {
    static let allCases: [SignatureAlgorithmCase] =
        [
            .init(algorithm: "algid:sign:ECDSA:RFC4754", isRSA: false, inputLength: 20),
            .init(algorithm: "algid:sign:ECDSA:digest-X962", isRSA: false, inputLength: 37),
            .init(algorithm: "algid:sign:RSA:raw", isRSA: true, inputLength: 256),
            .init(algorithm: "algid:sign:RSA:digest-PKCS1v15", isRSA: true, inputLength: 40),
        ]
        + hashNames.flatMap { hash -> [SignatureAlgorithmCase] in
            let length = hashLengths[hash]
            let pss = "\(hash):\(hash):\(pssSuffixes[hash] ?? "")"
            return [
                .init(algorithm: "algid:sign:ECDSA:message-X962:\(hash)", isRSA: false, inputLength: nil),
                .init(algorithm: "algid:sign:ECDSA:digest-X962:\(hash)", isRSA: false, inputLength: length),
                .init(algorithm: "algid:sign:RSA:message-PKCS1v15:\(hash)", isRSA: true, inputLength: nil),
                .init(algorithm: "algid:sign:RSA:digest-PKCS1v15:\(hash)", isRSA: true, inputLength: length),
                .init(algorithm: "algid:sign:RSA:message-PSS:\(pss)", isRSA: true, inputLength: nil),
                .init(algorithm: "algid:sign:RSA:digest-PSS:\(pss)", isRSA: true, inputLength: length),
            ]
        }

    @Test(arguments: allCases)
    func signatureVerifiesAndAWrongInputFails(_ test: SignatureAlgorithmCase) throws {
        let key = try test.isRSA ? #require(sharedRSAKey) : generateEC(384)
        let otherKey = try test.isRSA ? generateEC(256) : #require(sharedRSAKey)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        var input = test.inputLength.map(randomBytes) ?? Data("hello, signatures".utf8)
        if test.algorithm == "algid:sign:RSA:raw" { input[0] = 0 }  // below the modulus
        let algorithm = SecKeyAlgorithm(rawValue: test.algorithm as CFString)
        #expect(SecKeyIsAlgorithmSupported(key, .sign, algorithm))
        #expect(SecKeyIsAlgorithmSupported(key, .verify, algorithm))
        #expect(SecKeyIsAlgorithmSupported(publicKey, .verify, algorithm))
        #expect(!SecKeyIsAlgorithmSupported(publicKey, .sign, algorithm))
        #expect(!SecKeyIsAlgorithmSupported(otherKey, .sign, algorithm))
        #expect(!SecKeyIsAlgorithmSupported(otherKey, .verify, algorithm))

        let (signature, error) = sign(key, test.algorithm, input)
        #expect(error == nil)
        let signed = try #require(signature)
        if test.isRSA { #expect(signed.count == SecKeyGetBlockSize(key)) }
        if test.algorithm.hasSuffix("RFC4754") { #expect(signed.count == 2 * SecKeyGetBlockSize(key)) }
        #expect(verify(publicKey, test.algorithm, input, signed).0)
        #expect(verify(key, test.algorithm, input, signed).0)

        // Flip the first byte: ECDSA ignores digest bytes beyond the order's length (SHA-512 on P-384).
        var wrong = input
        wrong[0] ^= 0x01
        let (valid, failure) = verify(publicKey, test.algorithm, wrong, signed)
        #expect(!valid)
        #expect(code(failure) == Int(errSecVerifyFailed))

        // A public key cannot sign; the other key type cannot run the algorithm.
        #expect(code(sign(publicKey, test.algorithm, input).1) == Int(errSecParam))
        #expect(code(sign(otherKey, test.algorithm, input).1) == Int(errSecParam))
        let otherPublic = try #require(SecKeyCopyPublicKey(otherKey))
        let (otherValid, otherError) = verify(otherPublic, test.algorithm, input, signed)
        #expect(!otherValid)
        #expect(code(otherError) == Int(errSecParam))
    }

    @Test(arguments: allCases)
    func garbageSignaturesAreInvalidNotACrash(_ test: SignatureAlgorithmCase) throws {
        let key = try test.isRSA ? #require(sharedRSAKey) : generateEC(521)
        var input = test.inputLength.map(randomBytes) ?? Data("garbage".utf8)
        if test.algorithm == "algid:sign:RSA:raw" { input[0] = 0 }
        let blockSize = SecKeyGetBlockSize(key)
        let garbage =
            [0, 1, 2, 8, blockSize - 1, blockSize, blockSize + 1, 2 * blockSize, 2 * blockSize + 8, 600]
            .map(randomBytes) + [Data(count: blockSize), Data(repeating: 0xFF, count: blockSize), Data([0x30, 0x00])]
        for signature in garbage {
            let (valid, error) = verify(key, test.algorithm, input, signature)
            #expect(!valid)
            #expect(code(error) == Int(errSecVerifyFailed))
        }
    }

    // MARK: Wrong digest lengths, wrong key types, unknown names

    @Test(arguments: allCases.filter { $0.inputLength != nil && $0.algorithm.contains(":SHA") })
    func wrongDigestLengthIsAParameterErrorForSignAndVerify(_ test: SignatureAlgorithmCase) throws {
        let key = try test.isRSA ? #require(sharedRSAKey) : generateEC(256)
        let expected = try #require(test.inputLength)
        for length in [0, 1, expected - 1, expected + 1, 64 + 1, 1000] {
            let (signature, error) = sign(key, test.algorithm, randomBytes(length))
            #expect(signature == nil)
            #expect(code(error) == Int(errSecParam))
            let message = error.map { CFErrorCopyDescription($0) as String } ?? ""
            #expect(message.contains("must be \(expected) bytes long, not \(length)"))
            let (valid, verifyError) = verify(key, test.algorithm, randomBytes(length), randomBytes(64))
            #expect(!valid)
            #expect(code(verifyError) == Int(errSecParam))
        }
    }

    @Test func digestPKCS1v15ChecksTheDigestLengthUnlikeApple() throws {
        // Known difference: Apple wraps bytes of any length in the DigestInfo; here a SHA-256 DigestInfo holds 32.
        let key = try #require(sharedRSAKey)
        let (signature, error) = sign(key, "algid:sign:RSA:digest-PKCS1v15:SHA256", randomBytes(20))
        #expect(signature == nil)
        #expect(code(error) == Int(errSecParam))
    }

    @Test func namesApplesDoesNotDefineAreNotSupported() throws {
        let rsa = try #require(sharedRSAKey)
        let ec = try generateEC(256)
        for name in [
            "algid:sign:RSA:message-PSS:SHA256",  // the old, wrong spelling of the PSS names
            "algid:sign:RSA:message-PSS:SHA224:SHA224:28",
            "algid:sign:RSA:message-PSS:SHA256:SHA1:32",
            "algid:sign:RSA:digest-PSS:SHA256:SHA256:20",
            "algid:sign:RSA:message-PKCS1v15:MD5",
            "algid:sign:ECDSA:message-X962:SHA3",
            "algid:sign:ECDSA:message-X962",
            "algid:sign:ECDSA:RFC4754:SHA256",
            "algid:sign:RSA:raw:SHA1",
            "algid:encrypt:RSA:raw",
            "",
        ] {
            for key in [rsa, ec] {
                #expect(!SecKeyIsAlgorithmSupported(key, .sign, SecKeyAlgorithm(rawValue: name as CFString)))
                #expect(code(sign(key, name, Data("x".utf8)).1) == Int(errSecParam))
            }
        }
    }

    // MARK: SHA-224

    @Test func sha224MatchesFIPSVectorsAndOpenSSL() throws {
        let directory = try makeTemporaryDirectory("seckey-sig-sha224")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try generateEC(384)
        // A SHA-224 message signature verifies as a signature of the expected digest: a known-answer test.
        func expectDigest(_ message: Data, _ digest: Data, sourceLocation: SourceLocation = #_sourceLocation) {
            let signature = sign(key, "algid:sign:ECDSA:message-X962:SHA224", message).0 ?? Data()
            #expect(
                verify(key, "algid:sign:ECDSA:digest-X962:SHA224", digest, signature).0,
                sourceLocation: sourceLocation
            )
        }
        // FIPS 180-4 examples (NIST CSRC "SHA224.pdf") and the one-million-"a" vector.
        expectDigest(Data("abc".utf8), hexBytes("23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"))
        expectDigest(
            Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            hexBytes("75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525")
        )
        expectDigest(
            Data(repeating: UInt8(ascii: "a"), count: 1_000_000),
            hexBytes("20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67")
        )
        expectDigest(Data(), hexBytes("d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f"))
        // Every padding boundary, against openssl.
        for length in [1, 55, 56, 57, 63, 64, 65, 111, 119, 120, 127, 128, 1000] {
            let message = randomBytes(length)
            expectDigest(message, try opensslDigest(message, "sha224", in: directory))
        }
    }

    // MARK: openssl interoperability

    struct ECCase: Sendable, CustomTestStringConvertible {
        let bits: Int
        let hash: String
        var testDescription: String { "P-\(bits) \(hash)" }
    }

    static let ecCases: [ECCase] = [
        .init(bits: 256, hash: "SHA1"), .init(bits: 384, hash: "SHA224"), .init(bits: 521, hash: "SHA384"),
        .init(bits: 521, hash: "SHA1"), .init(bits: 521, hash: "SHA224"), .init(bits: 256, hash: "SHA224"),
        .init(bits: 384, hash: "SHA512"), .init(bits: 256, hash: "SHA384"),
    ]

    @Test(arguments: ecCases)
    func ecdsaInteroperatesWithOpenSSLBothWays(_ test: ECCase) throws {
        let ec = try ECKeyFiles(bits: test.bits)
        defer { try? FileManager.default.removeItem(at: ec.directory) }
        let hash = test.hash.lowercased()
        let message = randomBytes(100)
        try message.write(to: ec.file("msg.bin"))
        let digest = try opensslDigest(message, hash, in: ec.directory)
        try digest.write(to: ec.file("dgst.bin"))

        // Message: we sign → openssl verifies; openssl signs → we verify.
        let messageAlgorithm = "algid:sign:ECDSA:message-X962:\(test.hash)"
        try #require(sign(ec.key, messageAlgorithm, message).0).write(to: ec.file("ours.sig"))
        let opensslVerify = ["openssl", "dgst", "-\(hash)", "-verify", "pub.pem", "-signature", "ours.sig", "msg.bin"]
        #expect(try runTool(opensslVerify, in: ec.directory) == 0)
        let opensslSign = ["openssl", "dgst", "-\(hash)", "-sign", "key.pem", "-out", "ossl.sig", "msg.bin"]
        #expect(try runTool(opensslSign, in: ec.directory) == 0)
        let opensslSignature = try Data(contentsOf: ec.file("ossl.sig"))
        #expect(verify(ec.publicKey, messageAlgorithm, message, opensslSignature).0)

        // Digest (named hash and any length): openssl's signature of the digest verifies, and ours verify there.
        #expect(verify(ec.publicKey, "algid:sign:ECDSA:digest-X962:\(test.hash)", digest, opensslSignature).0)
        #expect(verify(ec.publicKey, "algid:sign:ECDSA:digest-X962", digest, opensslSignature).0)
        for algorithm in ["algid:sign:ECDSA:digest-X962:\(test.hash)", "algid:sign:ECDSA:digest-X962"] {
            try #require(sign(ec.key, algorithm, digest).0).write(to: ec.file("ours-digest.sig"))
            let pkeyutl = [
                "openssl", "pkeyutl", "-verify", "-pubin", "-inkey", "pub.pem", "-in", "dgst.bin", "-sigfile",
                "ours-digest.sig",
            ]
            #expect(try runTool(pkeyutl, in: ec.directory) == 0)
        }

        // RFC 4754 is r ‖ s: re-encoded as DER it verifies with openssl.
        let raw = [UInt8](try #require(sign(ec.key, "algid:sign:ECDSA:RFC4754", digest).0))
        #expect(raw.count == 2 * ec.fieldBytes)
        let reencoded = der(0x30, derInteger(Array(raw[..<ec.fieldBytes])) + derInteger(Array(raw[ec.fieldBytes...])))
        try Data(reencoded).write(to: ec.file("rfc4754.sig"))
        let pkeyutl = [
            "openssl", "pkeyutl", "-verify", "-pubin", "-inkey", "pub.pem", "-in", "dgst.bin", "-sigfile",
            "rfc4754.sig",
        ]
        #expect(try runTool(pkeyutl, in: ec.directory) == 0)
        #expect(verify(ec.publicKey, "algid:sign:ECDSA:RFC4754", digest, Data(raw)).0)
        #expect(!verify(ec.publicKey, "algid:sign:ECDSA:RFC4754", digest, opensslSignature).0)  // DER is not r ‖ s
    }

    @Test func ecdsaAnyLengthDigestMatchesOpenSSLTruncation() throws {
        // openssl pkeyutl signs its input bytes as the digest: truncated to the order's bit length, or a short
        // number. (OpenSSL 3 refuses inputs over 64 bytes, so longer digests only round-trip here.)
        for bits in [256, 384, 521] {
            let ec = try ECKeyFiles(bits: bits)
            defer { try? FileManager.default.removeItem(at: ec.directory) }
            for length in [0, 1, 20, 33, 47, 49, 64, 65, 66, 67, 100] {
                let digest = randomBytes(length)
                let ours = try #require(sign(ec.key, "algid:sign:ECDSA:digest-X962", digest).0)
                #expect(verify(ec.publicKey, "algid:sign:ECDSA:digest-X962", digest, ours).0)
                guard (1...64).contains(length) else { continue }
                try digest.write(to: ec.file("in.bin"))
                try ours.write(to: ec.file("ours.sig"))
                let opensslSign = [
                    "openssl", "pkeyutl", "-sign", "-inkey", "key.pem", "-in", "in.bin", "-out", "o.sig",
                ]
                #expect(try runTool(opensslSign, in: ec.directory) == 0)
                let opensslSignature = try Data(contentsOf: ec.file("o.sig"))
                #expect(
                    verify(ec.publicKey, "algid:sign:ECDSA:digest-X962", digest, opensslSignature).0,
                    "P-\(bits), \(length)-byte digest"
                )
                let pkeyutl = [
                    "openssl", "pkeyutl", "-verify", "-pubin", "-inkey", "pub.pem", "-in", "in.bin", "-sigfile",
                    "ours.sig",
                ]
                #expect(try runTool(pkeyutl, in: ec.directory) == 0, "P-\(bits), \(length)-byte digest")
            }
        }
    }

    @Test(arguments: hashNames)
    func rsaPKCS1v15EqualsOpenSSLByteForByte(_ hashName: String) throws {
        let rsa = try RSAKeyFiles()
        defer { try? FileManager.default.removeItem(at: rsa.directory) }
        let hash = hashName.lowercased()
        let message = randomBytes(77)
        try message.write(to: rsa.file("msg.bin"))
        let digest = try opensslDigest(message, hash, in: rsa.directory)
        try digest.write(to: rsa.file("dgst.bin"))

        // PKCS#1 v1.5 is deterministic: openssl's message and digest signatures equal ours.
        let opensslSign = ["openssl", "dgst", "-\(hash)", "-sign", "key.pem", "-out", "msg.sig", "msg.bin"]
        #expect(try runTool(opensslSign, in: rsa.directory) == 0)
        let pkeyutlSign = [
            "openssl", "pkeyutl", "-sign", "-inkey", "key.pem", "-in", "dgst.bin", "-out", "dgst.sig", "-pkeyopt",
            "digest:\(hash)",
        ]
        #expect(try runTool(pkeyutlSign, in: rsa.directory) == 0)
        let opensslMessageSignature = try Data(contentsOf: rsa.file("msg.sig"))
        #expect(try Data(contentsOf: rsa.file("dgst.sig")) == opensslMessageSignature)

        let messageAlgorithm = "algid:sign:RSA:message-PKCS1v15:\(hashName)"
        let digestAlgorithm = "algid:sign:RSA:digest-PKCS1v15:\(hashName)"
        let ours = try #require(sign(rsa.key, messageAlgorithm, message).0)
        #expect(ours == opensslMessageSignature)
        #expect(sign(rsa.key, digestAlgorithm, digest).0 == opensslMessageSignature)
        #expect(verify(rsa.publicKey, messageAlgorithm, message, opensslMessageSignature).0)
        #expect(verify(rsa.publicKey, digestAlgorithm, digest, opensslMessageSignature).0)

        try ours.write(to: rsa.file("ours.sig"))
        let opensslVerify = ["openssl", "dgst", "-\(hash)", "-verify", "pub.pem", "-signature", "ours.sig", "msg.bin"]
        #expect(try runTool(opensslVerify, in: rsa.directory) == 0)
        let pkeyutlVerify = [
            "openssl", "pkeyutl", "-verify", "-pubin", "-inkey", "pub.pem", "-in", "dgst.bin", "-sigfile", "ours.sig",
            "-pkeyopt", "digest:\(hash)",
        ]
        #expect(try runTool(pkeyutlVerify, in: rsa.directory) == 0)
    }

    @Test(arguments: hashNames)
    func rsaPSSInteroperatesWithOpenSSLBothWays(_ hashName: String) throws {
        let rsa = try RSAKeyFiles()
        defer { try? FileManager.default.removeItem(at: rsa.directory) }
        let hash = hashName.lowercased()
        let pssOptions = ["rsa_padding_mode:pss", "rsa_pss_saltlen:digest", "rsa_mgf1_md:\(hash)"]
        let message = randomBytes(91)
        try message.write(to: rsa.file("msg.bin"))
        let digest = try opensslDigest(message, hash, in: rsa.directory)
        try digest.write(to: rsa.file("dgst.bin"))
        let suffix = "\(hashName):\(hashName):\(pssSuffixes[hashName] ?? "")"
        let messageAlgorithm = "algid:sign:RSA:message-PSS:\(suffix)"
        let digestAlgorithm = "algid:sign:RSA:digest-PSS:\(suffix)"

        // openssl signs (message and digest) → we verify with both algorithms.
        let sigopts = pssOptions.flatMap { ["-sigopt", $0] }
        let pkeyopts = (["digest:\(hash)"] + pssOptions).flatMap { ["-pkeyopt", $0] }
        #expect(
            try runTool(
                ["openssl", "dgst", "-\(hash)", "-sign", "key.pem", "-out", "msg.sig"] + sigopts + ["msg.bin"],
                in: rsa.directory
            ) == 0
        )
        #expect(
            try runTool(
                ["openssl", "pkeyutl", "-sign", "-inkey", "key.pem", "-in", "dgst.bin", "-out", "dgst.sig"] + pkeyopts,
                in: rsa.directory
            ) == 0
        )
        for file in ["msg.sig", "dgst.sig"] {
            let signature = try Data(contentsOf: rsa.file(file))
            #expect(verify(rsa.publicKey, messageAlgorithm, message, signature).0, "\(file)")
            #expect(verify(rsa.publicKey, digestAlgorithm, digest, signature).0, "\(file)")
        }

        // We sign (message and digest) → openssl verifies both ways.
        for (index, signature) in [
            try #require(sign(rsa.key, messageAlgorithm, message).0),
            try #require(sign(rsa.key, digestAlgorithm, digest).0),
        ].enumerated() {
            try signature.write(to: rsa.file("ours.sig"))
            let dgstVerify =
                ["openssl", "dgst", "-\(hash)", "-verify", "pub.pem", "-signature", "ours.sig"] + sigopts + ["msg.bin"]
            #expect(try runTool(dgstVerify, in: rsa.directory) == 0, "signature \(index)")
            let pkeyutlVerify =
                ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", "pub.pem", "-in", "dgst.bin", "-sigfile"]
                + ["ours.sig"] + pkeyopts
            #expect(try runTool(pkeyutlVerify, in: rsa.directory) == 0, "signature \(index)")
        }
    }

    @Test func rsaDigestPKCS1v15RawAndRawEqualOpenSSL() throws {
        let rsa = try RSAKeyFiles()
        defer { try? FileManager.default.removeItem(at: rsa.directory) }
        let blockSize = SecKeyGetBlockSize(rsa.key)

        // PKCS#1 v1.5 padding without DigestInfo: `openssl rsautl -sign` (pkeyutl refuses inputs over 64 bytes).
        for length in [0, 1, 36, blockSize - 11] {
            let payload = randomBytes(length)
            try payload.write(to: rsa.file("payload.bin"))
            let rsautl = ["openssl", "rsautl", "-sign", "-inkey", "key.pem", "-in", "payload.bin", "-out", "p.sig"]
            #expect(try runTool(rsautl, in: rsa.directory) == 0)
            let opensslSignature = try Data(contentsOf: rsa.file("p.sig"))
            #expect(sign(rsa.key, "algid:sign:RSA:digest-PKCS1v15", payload).0 == opensslSignature, "\(length)")
            #expect(verify(rsa.publicKey, "algid:sign:RSA:digest-PKCS1v15", payload, opensslSignature).0)
        }
        let (tooLong, tooLongError) = sign(rsa.key, "algid:sign:RSA:digest-PKCS1v15", randomBytes(blockSize - 10))
        #expect(tooLong == nil)
        #expect(code(tooLongError) == Int(errSecParam))

        // Raw: m^d mod n equals openssl's unpadded signature; openssl recovers m from ours.
        var block = randomBytes(blockSize)
        block[0] = 0x3A
        try block.write(to: rsa.file("block.bin"))
        let rawSign = ["openssl", "rsautl", "-sign", "-raw", "-inkey", "key.pem", "-in", "block.bin", "-out", "r.sig"]
        #expect(try runTool(rawSign, in: rsa.directory) == 0)
        let ours = try #require(sign(rsa.key, "algid:sign:RSA:raw", block).0)
        #expect(ours == (try Data(contentsOf: rsa.file("r.sig"))))
        try ours.write(to: rsa.file("ours.sig"))
        let recover = [
            "openssl", "pkeyutl", "-verifyrecover", "-pubin", "-inkey", "pub.pem", "-in", "ours.sig", "-out",
            "recovered.bin", "-pkeyopt", "rsa_padding_mode:none",
        ]
        #expect(try runTool(recover, in: rsa.directory) == 0)
        #expect(try Data(contentsOf: rsa.file("recovered.bin")) == block)
        #expect(verify(rsa.publicKey, "algid:sign:RSA:raw", block, ours).0)

        // A short input is a small number: it signs as if left-padded with zeros.
        let short = Data([0x01, 0x02, 0x03])
        let shortSignature = try #require(sign(rsa.key, "algid:sign:RSA:raw", short).0)
        #expect(shortSignature.count == blockSize)
        #expect(shortSignature == sign(rsa.key, "algid:sign:RSA:raw", Data(count: blockSize - 3) + short).0)
        // Known difference: leading zero bytes of the signed data do not count (Apple compares bytes).
        #expect(verify(rsa.publicKey, "algid:sign:RSA:raw", Data(count: blockSize - 3) + short, shortSignature).0)
        #expect(verify(rsa.publicKey, "algid:sign:RSA:raw", short, shortSignature).0)
    }

    @Test func rsaRawInputAndSignaturesNotBelowTheModulusAreRejected() throws {
        let rsa = try RSAKeyFiles()
        defer { try? FileManager.default.removeItem(at: rsa.directory) }
        let blockSize = SecKeyGetBlockSize(rsa.key)
        let n = Data(rsa.modulus)
        let allOnes = Data(repeating: 0xFF, count: blockSize)
        for input in [n, allOnes, allOnes + Data([0xFF]), Data([0x01]) + Data(count: blockSize)] {
            let (signature, error) = sign(rsa.key, "algid:sign:RSA:raw", input)
            #expect(signature == nil)
            #expect(code(error) == Int(errSecParam))
        }
        var belowN = rsa.modulus
        belowN[belowN.count - 1] &-= 1
        #expect(sign(rsa.key, "algid:sign:RSA:raw", Data(belowN)).0 != nil)

        // Signatures ≥ n are invalid for every RSA algorithm.
        for test in Self.allCases where test.isRSA {
            var input = test.inputLength.map(randomBytes) ?? Data("n".utf8)
            if test.algorithm == "algid:sign:RSA:raw" { input[0] = 0 }
            for signature in [n, allOnes] {
                let (valid, error) = verify(rsa.publicKey, test.algorithm, input, signature)
                #expect(!valid, "\(test.algorithm)")
                #expect(code(error) == Int(errSecVerifyFailed))
            }
        }
    }

    @Test func ecdsaOnRSAAndRSAOnECAreParameterErrors() throws {
        let rsa = try #require(sharedRSAKey)
        let ec = try generateEC(256)
        let (ecOnRSA, ecOnRSAError) = sign(rsa, "algid:sign:ECDSA:message-X962:SHA224", Data("m".utf8))
        #expect(ecOnRSA == nil)
        #expect(code(ecOnRSAError) == Int(errSecParam))
        let (rsaOnEC, rsaOnECError) = sign(ec, "algid:sign:RSA:message-PSS:SHA1:SHA1:20", Data("m".utf8))
        #expect(rsaOnEC == nil)
        #expect(code(rsaOnECError) == Int(errSecParam))
        let ecSignature = try #require(sign(ec, "algid:sign:ECDSA:message-X962:SHA1", Data("m".utf8)).0)
        let (valid, error) = verify(rsa, "algid:sign:ECDSA:message-X962:SHA1", Data("m".utf8), ecSignature)
        #expect(!valid)
        #expect(code(error) == Int(errSecParam))
    }
}
#endif
