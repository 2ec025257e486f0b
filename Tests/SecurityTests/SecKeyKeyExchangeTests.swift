#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing

private func generateEC(_ size: Int) throws -> SecKey {
    let parameters: [String: Any] = [
        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: size,
    ]
    let (key, error) = capturingCFError { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }
    #expect(error == nil)
    return try #require(key)
}

private func exchange(
    _ privateKey: SecKey,
    _ algorithm: SecKeyAlgorithm,
    _ publicKey: SecKey,
    _ parameters: [String: Any] = [:]
) -> (Data?, CFError?) {
    let (result, error) = capturingCFError {
        SecKeyCopyKeyExchangeResult(privateKey, algorithm, publicKey, parameters as CFDictionary, $0)
    }
    return (result.map { Data(referencing: $0) }, error)
}

private func external(_ key: SecKey) throws -> Data {
    Data(referencing: try #require(capturingCFError { SecKeyCopyExternalRepresentation(key, $0) }.0))
}

/// A DER TLV with a definite length.
private func tlv(_ tag: UInt8, _ content: Data) -> Data {
    var length: [UInt8]
    switch content.count {
    case ..<0x80: length = [UInt8(content.count)]
    case ..<0x100: length = [0x81, UInt8(content.count)]
    default: length = [0x82, UInt8(content.count >> 8), UInt8(content.count & 0xFF)]
    }
    return Data([tag] + length) + content
}

/// The named-curve OID of a NIST curve, DER-encoded.
private func curveOID(_ size: Int) -> Data {
    switch size {
    case 256: Data([0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07])
    case 384: Data([0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22])
    default: Data([0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23])
    }
}

/// PEM files openssl reads: SEC 1 `EC PRIVATE KEY` for a private key, SubjectPublicKeyInfo for a public one.
private func pem(_ key: SecKey, size: Int) throws -> String {
    let bytes = try external(key)
    let fieldBytes = (size + 7) / 8
    let point = bytes.prefix(2 * fieldBytes + 1)
    let encoded: Data
    let label: String
    if bytes.count > point.count {
        encoded = tlv(
            0x30,
            Data([0x02, 0x01, 0x01]) + tlv(0x04, bytes.suffix(fieldBytes))
                + tlv(0xA0, curveOID(size)) + tlv(0xA1, tlv(0x03, Data([0]) + point))
        )
        label = "EC PRIVATE KEY"
    } else {
        let algorithm = tlv(0x30, Data([0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]) + curveOID(size))
        encoded = tlv(0x30, algorithm + tlv(0x03, Data([0]) + point))
        label = "PUBLIC KEY"
    }
    let body = encoded.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN \(label)-----\n\(body)\n-----END \(label)-----\n"
}

private extension Data {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

struct SecKeyKeyExchangeTests {
    @Test(arguments: [256, 384, 521])
    func rawECDHIsSymmetricAndEqualsOpenSSLDerive(_ size: Int) throws {
        let directory = try makeTemporaryDirectory("ecdh")
        defer { try? FileManager.default.removeItem(at: directory) }
        let alice = try generateEC(size)
        let bob = try generateEC(size)
        let bobPublic = try #require(SecKeyCopyPublicKey(bob))
        let alicePublic = try #require(SecKeyCopyPublicKey(alice))
        #expect(SecKeyIsAlgorithmSupported(alice, .keyExchange, kSecKeyAlgorithmECDHKeyExchangeStandard))
        #expect(!SecKeyIsAlgorithmSupported(alicePublic, .keyExchange, kSecKeyAlgorithmECDHKeyExchangeStandard))
        let (secret, error) = exchange(alice, kSecKeyAlgorithmECDHKeyExchangeStandard, bobPublic)
        #expect(error == nil)
        let shared = try #require(secret)
        #expect(shared.count == (size + 7) / 8)
        #expect(exchange(bob, kSecKeyAlgorithmECDHKeyExchangeStandard, alicePublic).0 == shared)
        #expect(exchange(bob, kSecKeyAlgorithmECDHKeyExchangeCofactor, alicePublic).0 == shared)

        try pem(alice, size: size).write(
            to: directory.appendingPathComponent("alice.pem"),
            atomically: true,
            encoding: .utf8
        )
        try pem(bobPublic, size: size).write(
            to: directory.appendingPathComponent("bob.pem"),
            atomically: true,
            encoding: .utf8
        )
        #expect(
            try runTool(
                ["openssl", "pkeyutl", "-derive", "-inkey", "alice.pem", "-peerkey", "bob.pem", "-out", "secret.bin"],
                in: directory
            ) == 0
        )
        #expect(try Data(contentsOf: directory.appendingPathComponent("secret.bin")) == shared)
    }

    struct KDFCase: Sendable, CustomStringConvertible {
        let algorithm: String
        let digest: String
        let size: Int
        let sharedInfo: Data?
        var description: String { "\(algorithm) \(size) bytes, sharedInfo \(sharedInfo?.count ?? -1)" }
    }

    static let kdfCases: [KDFCase] = [
        .init(algorithm: "algid:keyexchange:ECDH:KDFX963:SHA256", digest: "SHA256", size: 32, sharedInfo: nil),
        .init(
            algorithm: "algid:keyexchange:ECDH:KDFX963:SHA256",
            digest: "SHA256",
            size: 100,
            sharedInfo: Data("info".utf8)
        ),
        .init(algorithm: "algid:keyexchange:ECDHC:KDFX963:SHA256", digest: "SHA256", size: 16, sharedInfo: Data([1])),
        .init(algorithm: "algid:keyexchange:ECDH:KDFX963:SHA1", digest: "SHA1", size: 45, sharedInfo: Data([9, 9])),
        .init(algorithm: "algid:keyexchange:ECDH:KDFX963:SHA384", digest: "SHA384", size: 48, sharedInfo: nil),
        .init(
            algorithm: "algid:keyexchange:ECDH:KDFX963:SHA224",
            digest: "SHA224",
            size: 40,
            sharedInfo: Data([1, 2])
        ),
        .init(
            algorithm: "algid:keyexchange:ECDHC:KDFX963:SHA512",
            digest: "SHA512",
            size: 130,
            sharedInfo: Data("x".utf8)
        ),
    ]

    @Test(arguments: kdfCases)
    func x963KDFResultEqualsOpenSSLKDFOfTheRawSecret(_ test: KDFCase) throws {
        let directory = try makeTemporaryDirectory("x963")
        defer { try? FileManager.default.removeItem(at: directory) }
        let alice = try generateEC(256)
        let bob = try generateEC(256)
        let bobPublic = try #require(SecKeyCopyPublicKey(bob))
        let raw = try #require(exchange(alice, kSecKeyAlgorithmECDHKeyExchangeStandard, bobPublic).0)
        var parameters: [String: Any] = [kSecKeyKeyExchangeParameterRequestedSize as String: test.size]
        if let info = test.sharedInfo { parameters[kSecKeyKeyExchangeParameterSharedInfo as String] = info }
        let algorithm = SecKeyAlgorithm(rawValue: test.algorithm as CFString)
        let (derived, error) = exchange(alice, algorithm, bobPublic, parameters)
        #expect(error == nil)
        let ours = try #require(derived)
        #expect(ours.count == test.size)
        #expect(exchange(bob, algorithm, try #require(SecKeyCopyPublicKey(alice)), parameters).0 == ours)

        var arguments = [
            "openssl", "kdf", "-binary", "-out", "kdf.bin", "-keylen", String(test.size), "-kdfopt",
            "digest:\(test.digest)", "-kdfopt", "hexsecret:\(raw.hex)",
        ]
        if let info = test.sharedInfo { arguments += ["-kdfopt", "hexinfo:\(info.hex)"] }
        #expect(try runTool(arguments + ["X963KDF"], in: directory) == 0)
        #expect(try Data(contentsOf: directory.appendingPathComponent("kdf.bin")) == ours)
    }

    @Test func mismatchedKeysAndBadParametersGiveParamErrorsNeverACrash() throws {
        let p256 = try generateEC(256)
        let p384 = try generateEC(384)
        let p256Public = try #require(SecKeyCopyPublicKey(p256))
        let p384Public = try #require(SecKeyCopyPublicKey(p384))
        let rsaParameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
        ]
        let rsa = try #require(capturingCFError { SecKeyCreateRandomKey(rsaParameters as CFDictionary, $0) }.0)
        let x963 = kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256
        let size = kSecKeyKeyExchangeParameterRequestedSize as String
        let info = kSecKeyKeyExchangeParameterSharedInfo as String

        let attempts: [(SecKey, SecKeyAlgorithm, SecKey, [String: Any])] = [
            (p256, kSecKeyAlgorithmECDHKeyExchangeStandard, p384Public, [:]),  // different curves
            (p384, kSecKeyAlgorithmECDHKeyExchangeStandard, p256Public, [:]),
            (p256, kSecKeyAlgorithmECDHKeyExchangeStandard, try #require(SecKeyCopyPublicKey(rsa)), [:]),
            (rsa, kSecKeyAlgorithmECDHKeyExchangeStandard, p256Public, [:]),  // RSA private key
            (p256Public, kSecKeyAlgorithmECDHKeyExchangeStandard, p256Public, [:]),  // public "private" key
            (p256, x963, p256Public, [:]),  // requestedSize missing
            (p256, x963, p256Public, [size: "32"]),  // not a number
            (p256, x963, p256Public, [size: true]),
            (p256, x963, p256Public, [size: 0]),
            (p256, x963, p256Public, [size: -5]),
            (p256, x963, p256Public, [size: Int.max]),
            (p256, x963, p256Public, [size: 32, info: "not data"]),
            (p256, SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:MD5" as CFString), p256Public, [size: 32]),
            (p256, SecKeyAlgorithm(rawValue: "algid:keyexchange:DH" as CFString), p256Public, [:]),
            (p256, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, p256Public, [:]),
        ]
        for (index, (privateKey, algorithm, publicKey, parameters)) in attempts.enumerated() {
            let (result, error) = exchange(privateKey, algorithm, publicKey, parameters)
            #expect(result == nil, "attempt \(index)")
            #expect(error.map { CFErrorGetCode($0) } == Int(errSecParam), "attempt \(index)")
        }
        let (_, missing) = exchange(p256, x963, p256Public)
        #expect(missing.map { CFErrorCopyDescription($0) as String }?.contains("RequestedSize") == true)
        #expect(!SecKeyIsAlgorithmSupported(rsa, .keyExchange, kSecKeyAlgorithmECDHKeyExchangeStandard))
        #expect(SecKeyIsAlgorithmSupported(p384, .keyExchange, x963))
        // A private key given as the peer is used through its public half.
        #expect(
            exchange(p256, kSecKeyAlgorithmECDHKeyExchangeStandard, p256).0
                == exchange(p256, kSecKeyAlgorithmECDHKeyExchangeStandard, p256Public).0
        )
    }
}
#endif
