#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing
import LatchkeyTesting

private func generate(_ type: CFString, _ size: Int) throws -> SecKey {
    let parameters: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: size]
    let (key, error) = capturingCFError { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }
    #expect(error == nil)
    return try #require(key)
}

private func encrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: Data) -> (Data?, CFError?) {
    let (result, error) = capturingCFError { SecKeyCreateEncryptedData(key, algorithm, plaintext as CFData, $0) }
    return (result.map { Data(referencing: $0) }, error)
}

private func decrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: Data) -> (Data?, CFError?) {
    let (result, error) = capturingCFError { SecKeyCreateDecryptedData(key, algorithm, ciphertext as CFData, $0) }
    return (result.map { Data(referencing: $0) }, error)
}

private func external(_ key: SecKey) throws -> Data {
    Data(referencing: try #require(capturingCFError { SecKeyCopyExternalRepresentation(key, $0) }.0))
}

private func randomBytes(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
}

/// Expects `nil` and an `errSecParam` CFError in `NSOSStatusErrorDomain`; returns the error's description.
@discardableResult
private func expectParamError(
    _ outcome: (Data?, CFError?),
    sourceLocation: SourceLocation = #_sourceLocation
) -> String? {
    #expect(outcome.0 == nil, sourceLocation: sourceLocation)
    #expect(outcome.1.map { CFErrorGetCode($0) } == Int(errSecParam), sourceLocation: sourceLocation)
    #expect(outcome.1.map { CFErrorGetDomain($0) as String } == "NSOSStatusErrorDomain", sourceLocation: sourceLocation)
    return outcome.1.map { CFErrorCopyDescription($0) as String }
}

/// The first Python interpreter that imports `cryptography`: the CI venv (made by `.ci/run`), else `python3`.
private let pythonWithCryptography: String? = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let candidates = [root.appendingPathComponent(".venv-oauth/bin/python").path, "python3"]
    for candidate in candidates.compactMap(Peer.path(of:)) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: candidate)
        process.arguments = ["-c", "import cryptography.hazmat.primitives.kdf.x963kdf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? ProcessLaunch.run(process)) != nil else { continue }
        process.waitUntilExit()
        if process.terminationStatus == 0 { return candidate }
    }
    return nil
}()

/// An independent Apple-format ECIES written against Python's `cryptography` package.
///
/// `decrypt CURVE HASH VARIABLE_IV PRIVATE_SCALAR_HEX DATA_HEX OUT` / `encrypt CURVE HASH VARIABLE_IV POINT_HEX
/// DATA_HEX OUT`; writes the result bytes to OUT.
private let pythonECIES = """
    import sys
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
    mode, curve_name, hash_name, variable, key_hex, data_hex, out = sys.argv[1:]
    curve = {"P256": ec.SECP256R1(), "P384": ec.SECP384R1(), "P521": ec.SECP521R1()}[curve_name]
    algorithm = {"SHA1": hashes.SHA1(), "SHA224": hashes.SHA224(), "SHA256": hashes.SHA256(), "SHA384": hashes.SHA384(),
                 "SHA512": hashes.SHA512()}[hash_name]
    variable = variable == "1"
    key_bytes = 16 if curve.key_size <= 256 else 32
    point_bytes = 1 + 2 * ((curve.key_size + 7) // 8)
    data = bytes.fromhex(data_hex)
    def key_and_iv(secret, ephemeral_point):
        derived = X963KDF(algorithm=algorithm, length=key_bytes + (16 if variable else 0),
                          sharedinfo=ephemeral_point).derive(secret)
        return derived[:key_bytes], (derived[key_bytes:] if variable else bytes(16))
    if mode == "decrypt":
        private = ec.derive_private_key(int(key_hex, 16), curve)
        ephemeral_point = data[:point_bytes]
        ephemeral = ec.EllipticCurvePublicKey.from_encoded_point(curve, ephemeral_point)
        key, iv = key_and_iv(private.exchange(ec.ECDH(), ephemeral), ephemeral_point)
        result = AESGCM(key).decrypt(iv, data[point_bytes:], None)
    else:
        recipient = ec.EllipticCurvePublicKey.from_encoded_point(curve, bytes.fromhex(key_hex))
        ephemeral = ec.generate_private_key(curve)
        ephemeral_point = ephemeral.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        key, iv = key_and_iv(ephemeral.exchange(ec.ECDH(), recipient), ephemeral_point)
        result = ephemeral_point + AESGCM(key).encrypt(iv, data, None)
    open(out, "wb").write(result)
    """

private extension Data {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// An RSA key made by `openssl genrsa`, imported here from its PKCS#1 DER.
private struct OpenSSLRSAKey {
    let directory: URL
    let key: SecKey

    init(bits: Int = 2048) throws {
        directory = try makeTemporaryDirectory("seckey-enc")
        #expect(try runTool(["openssl", "genrsa", "-out", "rsa.pem", String(bits)], in: directory) == 0)
        #expect(
            try runTool(
                ["openssl", "rsa", "-in", "rsa.pem", "-outform", "DER", "-traditional", "-out", "rsa.der"],
                in: directory
            ) == 0
        )
        #expect(try runTool(["openssl", "rsa", "-in", "rsa.pem", "-pubout", "-out", "pub.pem"], in: directory) == 0)
        let der = try Data(contentsOf: directory.appendingPathComponent("rsa.der"))
        let (imported, error) = capturingCFError {
            SecKeyCreateWithData(
                der as CFData,
                [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPrivate] as CFDictionary,
                $0
            )
        }
        #expect(error == nil)
        key = try #require(imported)
    }

    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }
}

struct SecKeyEncryptionTests {
    struct RSACase: Sendable, CustomStringConvertible {
        let algorithm: String
        /// `openssl pkeyutl` options for the same padding.
        let openssl: [String]
        /// Bytes of overhead: the longest plaintext is `blockSize − overhead`.
        let overhead: Int
        var description: String { algorithm }
    }

    static let rsaCases: [RSACase] =
        [
            .init(algorithm: "algid:encrypt:RSA:PKCS1", openssl: ["rsa_padding_mode:pkcs1"], overhead: 11)
        ]
        + [
            ("SHA1", "sha1", 20), ("SHA224", "sha224", 28), ("SHA256", "sha256", 32), ("SHA384", "sha384", 48),
            ("SHA512", "sha512", 64),
        ].map {
            .init(
                algorithm: "algid:encrypt:RSA:OAEP:\($0.0)",
                openssl: ["rsa_padding_mode:oaep", "rsa_oaep_md:\($0.1)", "rsa_mgf1_md:\($0.1)"],
                overhead: 2 * $0.2 + 2
            )
        }

    @Test(arguments: rsaCases)
    func rsaCiphertextsInteroperateWithOpenSSLBothWays(_ test: RSACase) throws {
        let rsa = try OpenSSLRSAKey()
        defer { try? FileManager.default.removeItem(at: rsa.directory) }
        let algorithm = SecKeyAlgorithm(rawValue: test.algorithm as CFString)
        let options = test.openssl.flatMap { ["-pkeyopt", $0] }
        let message = randomBytes(SecKeyGetBlockSize(rsa.key) - test.overhead)  // the longest allowed
        try message.write(to: rsa.file("msg.bin"))

        // openssl encrypts → we decrypt.
        #expect(
            try runTool(
                ["openssl", "pkeyutl", "-encrypt", "-pubin", "-inkey", "pub.pem", "-in", "msg.bin", "-out", "ossl.bin"]
                    + options,
                in: rsa.directory
            ) == 0
        )
        let (plaintext, error) = decrypt(rsa.key, algorithm, try Data(contentsOf: rsa.file("ossl.bin")))
        #expect(error == nil)
        #expect(plaintext == message)

        // We encrypt (with the public key) → openssl decrypts.
        let publicKey = try #require(SecKeyCopyPublicKey(rsa.key))
        #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm))
        #expect(!SecKeyIsAlgorithmSupported(publicKey, .decrypt, algorithm))
        #expect(SecKeyIsAlgorithmSupported(rsa.key, .decrypt, algorithm))
        let (ciphertext, encryptError) = encrypt(publicKey, algorithm, message)
        #expect(encryptError == nil)
        let ours = try #require(ciphertext)
        #expect(ours.count == SecKeyGetBlockSize(rsa.key))
        try ours.write(to: rsa.file("ours.bin"))
        #expect(
            try runTool(
                ["openssl", "pkeyutl", "-decrypt", "-inkey", "rsa.pem", "-in", "ours.bin", "-out", "back.bin"]
                    + options,
                in: rsa.directory
            ) == 0
        )
        #expect(try Data(contentsOf: rsa.file("back.bin")) == message)

        // One byte more than the maximum is refused with a clear error.
        let tooLong = expectParamError(encrypt(publicKey, algorithm, message + Data([0])))
        #expect(tooLong?.contains("too long") == true)
    }

    @Test func rawEncryptionEqualsOpenSSLNoPaddingByteForByte() throws {
        let rsa = try OpenSSLRSAKey()
        defer { try? FileManager.default.removeItem(at: rsa.directory) }
        let block = Data([0]) + randomBytes(SecKeyGetBlockSize(rsa.key) - 1)  // below the modulus
        try block.write(to: rsa.file("block.bin"))
        #expect(
            try runTool(
                [
                    "openssl", "pkeyutl", "-encrypt", "-pubin", "-inkey", "pub.pem", "-in", "block.bin", "-out",
                    "ossl.bin", "-pkeyopt", "rsa_padding_mode:none",
                ],
                in: rsa.directory
            ) == 0
        )
        let (ours, error) = encrypt(rsa.key, kSecKeyAlgorithmRSAEncryptionRaw, block)
        #expect(error == nil)
        #expect(ours == (try Data(contentsOf: rsa.file("ossl.bin"))))
        #expect(decrypt(rsa.key, kSecKeyAlgorithmRSAEncryptionRaw, try #require(ours)).0 == block)
        // The modulus itself and anything above it are refused.
        expectParamError(encrypt(rsa.key, kSecKeyAlgorithmRSAEncryptionRaw, Data(repeating: 0xFF, count: block.count)))
        expectParamError(decrypt(rsa.key, kSecKeyAlgorithmRSAEncryptionRaw, Data(repeating: 0xFF, count: block.count)))
        expectParamError(encrypt(rsa.key, kSecKeyAlgorithmRSAEncryptionRaw, Data(count: block.count + 1)))
    }

    @Test(arguments: [2048, 3072])
    func everyRSAAlgorithmRoundTripsAndAPrivateKeyEncryptsWithItsPublicHalf(_ bits: Int) throws {
        let key = try generate(kSecAttrKeyTypeRSA, bits)
        let algorithms: [SecKeyAlgorithm] = [
            kSecKeyAlgorithmRSAEncryptionPKCS1, kSecKeyAlgorithmRSAEncryptionOAEPSHA1,
            kSecKeyAlgorithmRSAEncryptionOAEPSHA256, kSecKeyAlgorithmRSAEncryptionOAEPSHA384,
            kSecKeyAlgorithmRSAEncryptionOAEPSHA512, kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM,
            kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM, kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM,
            kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM,
        ]
        for algorithm in algorithms {
            for message in [Data(), Data("attack at dawn".utf8)] {
                let (ciphertext, error) = encrypt(key, algorithm, message)
                #expect(error == nil, "\(algorithm)")
                #expect(decrypt(key, algorithm, try #require(ciphertext)).0 == message, "\(algorithm)")
            }
        }
        // The AES-GCM variants carry any length: wrapped key ‖ ciphertext ‖ tag.
        let large = randomBytes(5000)
        let (sealed, _) = encrypt(key, kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM, large)
        #expect(sealed?.count == SecKeyGetBlockSize(key) + large.count + 16)
        #expect(decrypt(key, kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM, try #require(sealed)).0 == large)
    }

    @Test func rsaDecryptionFailuresAreOneGenericErrorNeverACrash() throws {
        let key = try generate(kSecAttrKeyTypeRSA, 2048)
        let size = SecKeyGetBlockSize(key)
        let algorithms: [SecKeyAlgorithm] = [
            kSecKeyAlgorithmRSAEncryptionPKCS1, kSecKeyAlgorithmRSAEncryptionOAEPSHA1,
            kSecKeyAlgorithmRSAEncryptionOAEPSHA256, kSecKeyAlgorithmRSAEncryptionOAEPSHA384,
            kSecKeyAlgorithmRSAEncryptionOAEPSHA512,
        ]
        for algorithm in algorithms {
            let valid = try #require(encrypt(key, algorithm, Data("secret".utf8)).0)
            var flipped = valid
            flipped[size / 2] ^= 0x01
            // Same-length garbage: each failure reaches the padding check and reports the same message.
            var messages: Set<String> = []
            for bad in [flipped, randomBytes(size), Data(count: size)] {
                if let message = expectParamError(decrypt(key, algorithm, bad)) { messages.insert(message) }
            }
            #expect(messages.count == 1, "\(algorithm): \(messages)")
            // Wrong lengths, and a value not below the modulus.
            for bad in [Data(), valid.dropLast(), valid + Data([0]), Data(repeating: 0xFF, count: size)] {
                expectParamError(decrypt(key, algorithm, bad))
            }
        }
        let gcm = try #require(encrypt(key, kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM, Data("secret".utf8)).0)
        var tampered = gcm
        tampered[tampered.count - 1] ^= 0x80
        expectParamError(decrypt(key, kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM, tampered))
        expectParamError(decrypt(key, kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM, gcm.prefix(size + 15)))
    }

    @Test func wrongKeyClassOrAlgorithmGivesParamErrors() throws {
        let rsa = try generate(kSecAttrKeyTypeRSA, 2048)
        let ec = try generate(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let rsaPublic = try #require(SecKeyCopyPublicKey(rsa))
        let ecPublic = try #require(SecKeyCopyPublicKey(ec))
        let message = Data("m".utf8)
        let rsaCiphertext = try #require(encrypt(rsa, kSecKeyAlgorithmRSAEncryptionOAEPSHA256, message).0)
        let eciesCiphertext = try #require(
            encrypt(ec, kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM, message).0
        )
        let publicDecrypt = expectParamError(decrypt(rsaPublic, kSecKeyAlgorithmRSAEncryptionOAEPSHA256, rsaCiphertext))
        #expect(publicDecrypt?.contains("public key") == true)
        expectParamError(
            decrypt(ecPublic, kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM, eciesCiphertext)
        )
        expectParamError(encrypt(ec, kSecKeyAlgorithmRSAEncryptionOAEPSHA256, message))
        expectParamError(encrypt(rsa, kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM, message))
        expectParamError(decrypt(rsa, kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM, rsaCiphertext))
        expectParamError(encrypt(rsa, kSecKeyAlgorithmRSASignatureMessagePSSSHA256, message))
        expectParamError(encrypt(rsa, SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:MD5" as CFString), message))
        expectParamError(
            encrypt(
                ec,
                SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM-KDFIV" as CFString),
                message
            )
        )
        expectParamError(encrypt(ec, SecKeyAlgorithm(rawValue: "" as CFString), message))
        #expect(!SecKeyIsAlgorithmSupported(ec, .encrypt, kSecKeyAlgorithmRSAEncryptionOAEPSHA256))
        #expect(!SecKeyIsAlgorithmSupported(rsa, .sign, kSecKeyAlgorithmRSAEncryptionOAEPSHA256))
        #expect(!SecKeyIsAlgorithmSupported(rsa, .encrypt, kSecKeyAlgorithmRSASignatureMessagePSSSHA256))
        #expect(SecKeyIsAlgorithmSupported(ec, .encrypt, kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM))
        #expect(SecKeyIsAlgorithmSupported(ecPublic, .encrypt, kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM))
        #expect(
            !SecKeyIsAlgorithmSupported(ecPublic, .decrypt, kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM)
        )
    }

    struct ECIESCase: Sendable, CustomStringConvertible {
        let size: Int
        let algorithm: String
        var description: String { "P-\(size) \(algorithm)" }
        var hashName: String { String(algorithm.split(separator: ":")[5]) }
        var variableIV: Bool { algorithm.hasSuffix("-KDFIV") }
        var aesKeyBytes: Int { size <= 256 ? 16 : 32 }
    }

    static let eciesCases: [ECIESCase] = [256, 384, 521].flatMap { size in
        [
            "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM", "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV",
            "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM", "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV",
            "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV", "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM",
            "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM", "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV",
        ].map { ECIESCase(size: size, algorithm: $0) }
    }

    @Test(arguments: eciesCases)
    func eciesRoundTripsAndRejectsTampering(_ test: ECIESCase) throws {
        let key = try generate(kSecAttrKeyTypeECSECPrimeRandom, test.size)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let algorithm = SecKeyAlgorithm(rawValue: test.algorithm as CFString)
        let pointLength = 2 * SecKeyGetBlockSize(key) + 1
        let message = Data("ECIES, the Apple way".utf8)
        #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm))
        #expect(SecKeyIsAlgorithmSupported(key, .decrypt, algorithm))
        let (ciphertext, error) = encrypt(publicKey, algorithm, message)
        #expect(error == nil)
        let sealed = try #require(ciphertext)
        #expect(sealed.count == pointLength + message.count + 16)
        #expect(sealed.first == 0x04)
        #expect(decrypt(key, algorithm, sealed).0 == message)
        // Fresh ephemeral key per message; an empty message is allowed; the private key encrypts too.
        #expect(encrypt(publicKey, algorithm, message).0 != sealed)
        let empty = try #require(encrypt(key, algorithm, Data()).0)
        #expect(empty.count == pointLength + 16)
        #expect(decrypt(key, algorithm, empty).0 == Data())

        for index in [1, pointLength, sealed.count - 1] {  // ephemeral point, ciphertext, tag
            var tampered = sealed
            tampered[index] ^= 0x01
            expectParamError(decrypt(key, algorithm, tampered))
        }
        for truncated in [Data(), sealed.prefix(pointLength - 1), sealed.prefix(pointLength + 15), sealed.dropLast()] {
            expectParamError(decrypt(key, algorithm, truncated))
        }
        expectParamError(decrypt(key, algorithm, randomBytes(sealed.count)))
        let otherKey = try generate(kSecAttrKeyTypeECSECPrimeRandom, test.size)
        expectParamError(decrypt(otherKey, algorithm, sealed))
        // The same bytes under the other IV variant do not authenticate.
        let otherVariant = test.variableIV ? String(test.algorithm.dropLast(6)) : test.algorithm + "-KDFIV"
        if test.hashName != "SHA1" {
            expectParamError(decrypt(key, SecKeyAlgorithm(rawValue: otherVariant as CFString), sealed))
        }
    }

    // Python's `cryptography` is a peer: without it the test fails, never skips. `.ci/run` provides it
    // through the `.venv-oauth` virtual environment.
    @Test(arguments: eciesCases)
    func eciesInteroperatesWithAnIndependentPythonImplementation(_ test: ECIESCase) throws {
        let python = try #require(
            pythonWithCryptography,
            Comment(
                rawValue: "peer Python with the cryptography package missing: run .ci/run (it makes .venv-oauth), "
                    + "or apt-get install -y python3-cryptography"
            )
        )
        let directory = try makeTemporaryDirectory("ecies-python")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try generate(kSecAttrKeyTypeECSECPrimeRandom, test.size)
        let privateBytes = try external(key)
        let fieldBytes = SecKeyGetBlockSize(key)
        let scalar = privateBytes.suffix(fieldBytes)
        let point = privateBytes.prefix(2 * fieldBytes + 1)
        let curve = "P\(test.size)"
        let variable = test.variableIV ? "1" : "0"
        let message = randomBytes(77)

        // Ours → Python decrypts.
        let sealed = try #require(encrypt(key, SecKeyAlgorithm(rawValue: test.algorithm as CFString), message).0)
        let decryptArguments = [
            python, "-c", pythonECIES, "decrypt", curve, test.hashName, variable, scalar.hex, sealed.hex, "py-plain",
        ]
        #expect(try runTool(decryptArguments, in: directory) == 0)
        #expect(try Data(contentsOf: directory.appendingPathComponent("py-plain")) == message)

        // Python encrypts → ours decrypts.
        let encryptArguments = [
            python, "-c", pythonECIES, "encrypt", curve, test.hashName, variable, point.hex, message.hex, "py-sealed",
        ]
        #expect(try runTool(encryptArguments, in: directory) == 0)
        let pythonSealed = try Data(contentsOf: directory.appendingPathComponent("py-sealed"))
        let (plaintext, error) = decrypt(key, SecKeyAlgorithm(rawValue: test.algorithm as CFString), pythonSealed)
        #expect(error == nil)
        #expect(plaintext == message)
    }
}
#endif
