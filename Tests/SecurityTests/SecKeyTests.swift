#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing
import LatchkeyTesting

private func generate(_ type: CFString, _ size: Int, _ extra: [String: Any] = [:]) throws -> SecKey {
    var parameters: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: size]
    parameters.merge(extra) { $1 }
    let (key, error) = capturingCFError { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }
    #expect(error == nil)
    return try #require(key)
}

private func sign(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ message: Data) -> (Data?, CFError?) {
    let (signature, error) = capturingCFError { SecKeyCreateSignature(key, algorithm, message as CFData, $0) }
    return (signature.map { Data(referencing: $0) }, error)
}

private func verify(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ message: Data, _ signature: Data) -> (Bool, CFError?)
{
    capturingCFError { SecKeyVerifySignature(key, algorithm, message as CFData, signature as CFData, $0) }
}

/// The fixed SubjectPublicKeyInfo DER header of a P-256 public key, followed by the X9.63 point.
private let p256SPKIHeader = Data([
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
    0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
])

private func pem(_ der: Data, _ label: String) -> String {
    let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN \(label)-----\n\(body)\n-----END \(label)-----\n"
}

struct SecKeyTests {
    struct SignatureCase: Sendable, CustomStringConvertible {
        let type: String
        let size: Int
        let algorithm: String
        var description: String { "\(type)/\(size) \(algorithm)" }
    }

    static let signatureCases: [SignatureCase] = [
        .init(type: "73", size: 256, algorithm: "algid:sign:ECDSA:message-X962:SHA256"),
        .init(type: "73", size: 384, algorithm: "algid:sign:ECDSA:message-X962:SHA384"),
        .init(type: "73", size: 521, algorithm: "algid:sign:ECDSA:message-X962:SHA512"),
        .init(type: "73", size: 256, algorithm: "algid:sign:ECDSA:message-X962:SHA512"),
        .init(type: "42", size: 2048, algorithm: "algid:sign:RSA:message-PKCS1v15:SHA256"),
        .init(type: "42", size: 2048, algorithm: "algid:sign:RSA:message-PKCS1v15:SHA384"),
        .init(type: "42", size: 2048, algorithm: "algid:sign:RSA:message-PKCS1v15:SHA512"),
        .init(type: "42", size: 2048, algorithm: "algid:sign:RSA:message-PSS:SHA256:SHA256:32"),
        .init(type: "42", size: 2048, algorithm: "algid:sign:RSA:message-PSS:SHA512:SHA512:64"),
    ]

    @Test(arguments: signatureCases)
    func signatureVerifiesAndAWrongMessageFails(_ test: SignatureCase) throws {
        let key = try generate(test.type as CFString, test.size)
        let algorithm = SecKeyAlgorithm(rawValue: test.algorithm as CFString)
        let message = Data("hello, keychain".utf8)
        #expect(SecKeyIsAlgorithmSupported(key, .sign, algorithm))
        let (signature, error) = sign(key, algorithm, message)
        #expect(error == nil)
        let signed = try #require(signature)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        #expect(!SecKeyIsAlgorithmSupported(publicKey, .sign, algorithm))
        #expect(verify(publicKey, algorithm, message, signed).0)
        let (valid, failure) = verify(publicKey, algorithm, Data("hello, keychain!".utf8), signed)
        #expect(!valid)
        #expect(failure.map { CFErrorGetCode($0) } == Int(errSecVerifyFailed))
    }

    @Test func digestAlgorithmSignsTheCallersDigestAndChecksItsLength() throws {
        let key = try generate(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let message = Data("digest me".utf8)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let (messageSignature, _) = sign(key, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, message)
        // A message signature verifies as a signature of the message's SHA-256 digest.
        let digest = Data(sha256(message))
        #expect(
            verify(publicKey, kSecKeyAlgorithmECDSASignatureDigestX962SHA256, digest, try #require(messageSignature)).0
        )
        let (shortSignature, error) = sign(key, kSecKeyAlgorithmECDSASignatureDigestX962SHA256, Data([1, 2, 3]))
        #expect(shortSignature == nil)
        #expect(error.map { CFErrorGetCode($0) } == Int(errSecParam))
    }

    @Test func wrongAlgorithmOrPublicKeySigningGivesAnErrorNotACrash() throws {
        let ecKey = try generate(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let (rsaSignature, rsaError) = sign(ecKey, kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256, Data([1]))
        #expect(rsaSignature == nil)
        #expect(rsaError.map { CFErrorGetCode($0) } == Int(errSecParam))
        let (unknown, unknownError) = sign(
            ecKey,
            SecKeyAlgorithm(rawValue: "algid:encrypt:nonsense" as CFString),
            Data([1])
        )
        #expect(unknown == nil)
        #expect(unknownError != nil)
        let publicKey = try #require(SecKeyCopyPublicKey(ecKey))
        let (publicSignature, publicError) = sign(publicKey, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, Data([1]))
        #expect(publicSignature == nil)
        #expect(publicError.map { CFErrorGetCode($0) } == Int(errSecParam))
        #expect(!verify(publicKey, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, Data([1]), Data([0x30, 0x00])).0)
    }

    @Test func unsupportedGenerationParametersGiveAnError() {
        let cases: [[String: Any]] = [
            [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 192],
            [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 1024],
            [kSecAttrKeyType as String: kSecAttrKeyTypeAES, kSecAttrKeySizeInBits as String: 256],
            [kSecAttrKeySizeInBits as String: 256],
        ]
        for parameters in cases {
            let (key, error) = capturingCFError { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }
            #expect(key == nil)
            #expect(error.map { CFErrorGetCode($0) } == Int(errSecParam))
        }
    }

    @Test(arguments: [("73", 256, 65, 97), ("73", 384, 97, 145), ("73", 521, 133, 199)])
    func ecExternalRepresentationIsX963AndRoundTrips(
        _ type: String,
        _ size: Int,
        _ publicLength: Int,
        _ privateLength: Int
    )
        throws
    {
        let key = try generate(type as CFString, size)
        let privateBytes = try #require(capturingCFError { SecKeyCopyExternalRepresentation(key, $0) }.0)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let publicBytes = try #require(capturingCFError { SecKeyCopyExternalRepresentation(publicKey, $0) }.0)
        #expect(privateBytes.length == privateLength)
        #expect(publicBytes.length == publicLength)
        #expect(Data(referencing: privateBytes).first == 0x04)
        #expect(Data(referencing: privateBytes).prefix(publicLength) == Data(referencing: publicBytes))
        let rebuilt = capturingCFError {
            SecKeyCreateWithData(
                privateBytes,
                [
                    kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPrivate,
                    kSecAttrKeySizeInBits: size,
                ] as CFDictionary,
                $0
            )
        }
        #expect(rebuilt.1 == nil)
        #expect(rebuilt.0 == key)
        let rebuiltPublic = capturingCFError {
            SecKeyCreateWithData(
                publicBytes,
                [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPublic]
                    as CFDictionary,
                $0
            )
        }
        #expect(rebuiltPublic.0 == publicKey)
        #expect(SecKeyGetBlockSize(key) == (size + 7) / 8)
    }

    @Test func rsaExternalRepresentationIsPKCS1AndRoundTrips() throws {
        let key = try generate(kSecAttrKeyTypeRSA, 2048)
        let privateBytes = Data(
            referencing: try #require(capturingCFError { SecKeyCopyExternalRepresentation(key, $0) }.0)
        )
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let publicBytes = Data(
            referencing: try #require(capturingCFError { SecKeyCopyExternalRepresentation(publicKey, $0) }.0)
        )
        // RSAPrivateKey ::= SEQUENCE { version 0, ... }: 30 82 xx xx 02 01 00.
        #expect(privateBytes.prefix(2) == Data([0x30, 0x82]))
        #expect(privateBytes.dropFirst(4).prefix(3) == Data([0x02, 0x01, 0x00]))
        // RSAPublicKey ::= SEQUENCE { modulus INTEGER, ... }: 30 82 01 0a 02 82 01 01 00.
        #expect(publicBytes.prefix(4) == Data([0x30, 0x82, 0x01, 0x0A]))
        let rebuilt = capturingCFError {
            SecKeyCreateWithData(
                privateBytes as CFData,
                [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPrivate] as CFDictionary,
                $0
            )
        }
        #expect(rebuilt.0 == key)
        let rebuiltPublic = capturingCFError {
            SecKeyCreateWithData(
                publicBytes as CFData,
                [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPublic] as CFDictionary,
                $0
            )
        }
        #expect(rebuiltPublic.0 == publicKey)
        #expect(SecKeyGetBlockSize(key) == 256)
    }

    @Test func malformedExternalRepresentationsGiveAnErrorNotACrash() {
        let attempts: [(Data, [CFString: Any])] = [
            (Data(), [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPublic]),
            (
                Data([0x04] + [UInt8](repeating: 7, count: 64)),
                [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPublic]
            ),
            (
                Data(repeating: 1, count: 97),
                [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPrivate]
            ),
            (
                Data([0x30, 0x03, 0x02, 0x01, 0x00]),
                [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPrivate]
            ),
            (Data("garbage".utf8), [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPublic]),
            (Data([0x04] + [UInt8](repeating: 7, count: 64)), [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom]),
            (Data([0x04]), [kSecAttrKeyClass: kSecAttrKeyClassPublic]),
        ]
        for (data, attributes) in attempts {
            let (key, error) = capturingCFError { SecKeyCreateWithData(data as CFData, attributes as CFDictionary, $0) }
            #expect(key == nil)
            #expect(error.map { CFErrorGetCode($0) } == Int(errSecParam))
            #expect(error.map { CFErrorGetDomain($0) as String } == "NSOSStatusErrorDomain")
        }
    }

    @Test func copyAttributesGivesApplesDerivedValues() throws {
        let key = try generate(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes["kcls"] as? String == "1")
        #expect(attributes["type"] as? String == "73")
        #expect(attributes["bsiz"] as? Int == 256)
        #expect(attributes["sign"] as? Bool == true)
        #expect(attributes["vrfy"] as? Bool == false)
        #expect(attributes["decr"] as? Bool == true)
        #expect(attributes["drve"] as? Bool == true)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let publicBytes = Data(
            referencing: try #require(capturingCFError { SecKeyCopyExternalRepresentation(publicKey, $0) }.0)
        )
        #expect(attributes["klbl"] as? Data == Data(sha1(publicBytes)))
        let publicAttributes = try #require(SecKeyCopyAttributes(publicKey) as? [String: Any])
        #expect(publicAttributes["kcls"] as? String == "0")
        #expect(publicAttributes["klbl"] as? Data == attributes["klbl"] as? Data)
        #expect(publicAttributes["drve"] as? Bool == false)
        let rsa = try #require(SecKeyCopyAttributes(try generate(kSecAttrKeyTypeRSA, 2048)) as? [String: Any])
        #expect(rsa["type"] as? String == "42")
        #expect(rsa["drve"] as? Bool == false)
    }

    @Test func permanentKeyIsStoredByTagAndComesBackAsARefThatSigns() throws {
        try withTemporaryKeychain { _ in
            let tag = Data("com.example.signing".utf8)
            let key = try generate(
                kSecAttrKeyTypeECSECPrimeRandom,
                256,
                [
                    kSecPrivateKeyAttrs as String: [
                        kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                    ]
                ]
            )
            let (status, found) = Sec.copy([
                kSecClass as String: kSecClassKey,
                kSecAttrApplicationTag as String: tag,
                kSecReturnRef as String: true,
            ])
            #expect(status == errSecSuccess)
            let stored = try #require(found as? SecKey)
            #expect(stored == key)
            let message = Data("stored".utf8)
            let signature = try #require(sign(stored, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, message).0)
            #expect(
                verify(
                    try #require(SecKeyCopyPublicKey(key)),
                    kSecKeyAlgorithmECDSASignatureMessageX962SHA256,
                    message,
                    signature
                ).0
            )

            let (_, attributesResult) = Sec.copy([
                kSecClass as String: kSecClassKey,
                kSecAttrApplicationTag as String: tag,
                kSecReturnAttributes as String: true,
            ])
            let attributes = try #require(attributesResult as? [String: Any])
            #expect(attributes["kcls"] as? Int == 1)
            #expect(attributes["type"] as? Int == 73)
            #expect(attributes["bsiz"] as? Int == 256)
            #expect(attributes["esiz"] as? Int == 256)
            #expect(attributes["priv"] as? Int == 1)
            #expect(attributes["perm"] as? Int == 1)
            #expect(attributes["sign"] as? Int == 1)
            #expect(attributes["klbl"] as? Data == (SecKeyCopyAttributes(key) as? [String: Any])?["klbl"] as? Data)
        }
    }

    @Test func topLevelPermanentKeyIsStoredWithItsLabelAndDeletedByRef() throws {
        try withTemporaryKeychain { _ in
            let key = try generate(
                kSecAttrKeyTypeRSA,
                2048,
                [kSecAttrIsPermanent as String: true, kSecAttrLabel as String: "top level"]
            )
            let (status, found) = Sec.copy([
                kSecClass as String: kSecClassKey,
                kSecAttrLabel as String: "top level",
                kSecReturnRef as String: true,
            ])
            #expect(status == errSecSuccess)
            #expect(found as? SecKey == key)
            #expect(Sec.delete([kSecValueRef as String: key]) == errSecSuccess)
            // A top-level kSecAttrIsPermanent stores the public key too (Apple's key generation attributes).
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            #expect(
                Sec.copy([kSecClass as String: kSecClassKey, kSecReturnRef as String: true]).1 as? SecKey == publicKey
            )
            #expect(Sec.delete([kSecValueRef as String: publicKey]) == errSecSuccess)
            #expect(Sec.copy([kSecClass as String: kSecClassKey]).0 == errSecItemNotFound)
        }
    }

    @Test func nonPermanentKeyIsNotStored() throws {
        try withTemporaryKeychain { _ in
            _ = try generate(kSecAttrKeyTypeECSECPrimeRandom, 256, [kSecAttrApplicationTag as String: Data("t".utf8)])
            #expect(Sec.copy([kSecClass as String: kSecClassKey]).0 == errSecItemNotFound)
        }
    }

    @Test func addByValueRefStoresExternalRepresentationAndDuplicateIsRejected() throws {
        try withTemporaryKeychain { _ in
            let key = try generate(kSecAttrKeyTypeRSA, 2048)
            let item: [String: Any] = [
                kSecClass as String: kSecClassKey,
                kSecValueRef as String: key,
                kSecAttrApplicationTag as String: Data("rsa".utf8),
                kSecAttrLabel as String: "My RSA key",
            ]
            #expect(Sec.add(item) == errSecSuccess)
            #expect(Sec.add(item) == errSecDuplicateItem)
            let (status, result) = Sec.copy([
                kSecClass as String: kSecClassKey,
                kSecAttrLabel as String: "My RSA key",
                kSecReturnData as String: true,
            ])
            #expect(status == errSecSuccess)
            let external = Data(
                referencing: try #require(capturingCFError { SecKeyCopyExternalRepresentation(key, $0) }.0)
            )
            #expect(result as? Data == external)
            // A SecKey as a query finds the stored key.
            let (byRef, found) = Sec.copy([kSecValueRef as String: key, kSecReturnRef as String: true])
            #expect(byRef == errSecSuccess)
            #expect(found as? SecKey == key)
        }
    }

    @Test func rsa3072KeyHasItsSizeAndBlockSize() throws {
        let key = try generate(kSecAttrKeyTypeRSA, 3072)
        #expect(SecKeyGetBlockSize(key) == 384)
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes["bsiz"] as? Int == 3072)
    }

    @Test func opensslRSAKeyImportsAsPKCS1AndItsSignaturesVerifyWithOpenSSL() throws {
        let directory = try makeTemporaryDirectory("seckey")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try runTool(["openssl", "genrsa", "-out", "rsa.pem", "2048"], in: directory) == 0)
        #expect(
            try runTool(
                ["openssl", "rsa", "-in", "rsa.pem", "-outform", "DER", "-traditional", "-out", "rsa.der"],
                in: directory
            )
                == 0
        )
        #expect(try runTool(["openssl", "rsa", "-in", "rsa.pem", "-pubout", "-out", "pub.pem"], in: directory) == 0)
        let pkcs1 = try Data(contentsOf: directory.appendingPathComponent("rsa.der"))
        let (imported, error) = capturingCFError {
            SecKeyCreateWithData(
                pkcs1 as CFData,
                [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPrivate] as CFDictionary,
                $0
            )
        }
        #expect(error == nil)
        let key = try #require(imported)
        #expect(
            Data(referencing: try #require(capturingCFError { SecKeyCopyExternalRepresentation(key, $0) }.0)) == pkcs1
        )
        let message = Data("rsa interoperability".utf8)
        try message.write(to: directory.appendingPathComponent("msg.txt"))
        let pkcs1v15 = try #require(sign(key, kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256, message).0)
        try pkcs1v15.write(to: directory.appendingPathComponent("v15.sig"))
        #expect(
            try runTool(
                ["openssl", "dgst", "-sha256", "-verify", "pub.pem", "-signature", "v15.sig", "msg.txt"],
                in: directory
            )
                == 0
        )
        let pss = try #require(sign(key, kSecKeyAlgorithmRSASignatureMessagePSSSHA256, message).0)
        try pss.write(to: directory.appendingPathComponent("pss.sig"))
        #expect(
            try runTool(
                [
                    "openssl", "dgst", "-sha256", "-sigopt", "rsa_padding_mode:pss", "-sigopt",
                    "rsa_pss_saltlen:digest",
                    "-verify", "pub.pem", "-signature", "pss.sig", "msg.txt",
                ],
                in: directory
            ) == 0
        )
    }

    @Test func p256SignatureVerifiesWithOpenSSLAndOpenSSLSignatureVerifiesHere() throws {
        let directory = try makeTemporaryDirectory("seckey")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try generate(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let point = Data(
            referencing: try #require(capturingCFError { SecKeyCopyExternalRepresentation(publicKey, $0) }.0)
        )
        try pem(p256SPKIHeader + point, "PUBLIC KEY").write(
            to: directory.appendingPathComponent("pub.pem"),
            atomically: true,
            encoding: .utf8
        )
        let message = Data("interoperability".utf8)
        try message.write(to: directory.appendingPathComponent("msg.txt"))
        let signature = try #require(sign(key, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, message).0)
        try signature.write(to: directory.appendingPathComponent("sig.der"))
        #expect(
            try runTool(
                ["openssl", "dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.der", "msg.txt"],
                in: directory
            ) == 0
        )

        // openssl signs; we verify with the key imported from openssl's uncompressed public point.
        #expect(
            try runTool(
                ["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ossl.pem"],
                in: directory
            ) == 0
        )
        #expect(
            try runTool(
                ["openssl", "ec", "-in", "ossl.pem", "-pubout", "-outform", "DER", "-out", "ossl-pub.der"],
                in: directory
            ) == 0
        )
        #expect(
            try runTool(
                ["openssl", "dgst", "-sha256", "-sign", "ossl.pem", "-out", "ossl-sig.der", "msg.txt"],
                in: directory
            ) == 0
        )
        let spki = try Data(contentsOf: directory.appendingPathComponent("ossl-pub.der"))
        #expect(spki.prefix(p256SPKIHeader.count) == p256SPKIHeader)
        let imported = capturingCFError {
            SecKeyCreateWithData(
                spki.dropFirst(p256SPKIHeader.count) as CFData,
                [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPublic]
                    as CFDictionary,
                $0
            )
        }
        let opensslKey = try #require(imported.0)
        let opensslSignature = try Data(contentsOf: directory.appendingPathComponent("ossl-sig.der"))
        #expect(verify(opensslKey, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, message, opensslSignature).0)
        #expect(
            !verify(opensslKey, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, Data("other".utf8), opensslSignature).0
        )
    }
}

/// SHA-256 and SHA-1 through openssl-free Foundation-less helpers: use the Security module's own path.
private func sha256(_ data: Data) -> [UInt8] { digest(data, "sha256") }
private func sha1(_ data: Data) -> [UInt8] { digest(data, "sha1") }

/// A digest computed by the `openssl` CLI (an independent implementation).
private func digest(_ data: Data, _ name: String) -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl", "dgst", "-\(name)", "-binary"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    do { try ProcessLaunch.run(process) } catch { return [] }
    input.fileHandleForWriting.write(data)
    try? input.fileHandleForWriting.close()
    let result = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return [UInt8](result)
}
#endif
