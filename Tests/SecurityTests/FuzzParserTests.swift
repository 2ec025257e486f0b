#if !canImport(Darwin)
import Foundation
import LatchkeyTesting
import LatchkeySecurity
import Testing

/// Mutation fuzzing of the Apple face's parsers of untrusted bytes (issue 14): PKCS#12 files
/// (`SecPKCS12Import`), DER certificates (`SecCertificateCreateWithData`) and key external representations
/// (`SecKeyCreateWithData`). Every mutated input parses or fails the documented way; nothing traps, and
/// what parses is checked where that is possible.
struct FuzzParserTests {
    /// Mutated PKCS#12 files tried (each may run a few thousand PBKDF2 rounds).
    static let pkcs12Iterations = 1500
    /// Mutated certificates tried.
    static let certificateIterations = 4000
    /// Mutated key representations tried, per key kind.
    static let keyIterations = 1500

    /// Seeds made by the real `openssl`: a P-256 and an RSA-2048 self-signed certificate (DER) and their
    /// PKCS#12 exports (AES-256-CBC, PBKDF2, HMAC-SHA-256 MAC: OpenSSL 3's defaults), passphrase `fuzz`.
    struct Seeds {
        var certificates: [[UInt8]] = []
        var pkcs12: [[UInt8]] = []

        init() throws {
            let directory = try makeTemporaryDirectory("fuzz-seeds")
            defer { try? FileManager.default.removeItem(at: directory) }
            try Data("[req]\ndistinguished_name = dn\n[dn]\n".utf8).write(
                to: directory.appendingPathComponent("req.cnf")
            )
            let keys = [
                ("ec", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]),
                ("rsa", ["-newkey", "rsa:2048"]),
            ]
            for (name, newKey) in keys {
                let steps: [[String]] = [
                    ["openssl", "req", "-x509", "-config", "req.cnf", "-nodes", "-days", "30"] + newKey
                        + ["-keyout", "\(name).key", "-out", "\(name).pem", "-subj", "/CN=fuzz \(name)/O=Example"],
                    ["openssl", "x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"],
                    [
                        "openssl", "pkcs12", "-export", "-inkey", "\(name).key", "-in", "\(name).pem", "-name", "Fuzz",
                        "-passout", "pass:fuzz", "-out", "\(name).p12",
                    ],
                ]
                for step in steps {
                    let status = try runTool(step, in: directory)
                    try #require(status == 0, "\(step.joined(separator: " ")) failed")
                }
                certificates.append([UInt8](try Data(contentsOf: directory.appendingPathComponent("\(name).der"))))
                pkcs12.append([UInt8](try Data(contentsOf: directory.appendingPathComponent("\(name).p12"))))
            }
        }
    }

    @Test func mutatedPKCS12FilesImportOrFailWithTheDocumentedStatus() throws {
        let seeds = try Seeds().pkcs12
        let options = [kSecImportExportPassphrase as String: "fuzz"] as CFDictionary
        for seed in seeds {
            var items: CFArray?
            #expect(SecPKCS12Import(Data(seed) as CFData, options, &items) == errSecSuccess, "a seed does not import")
        }
        var mutator = ByteMutator(seed: 0x5EED_0012)
        var statuses: [OSStatus: Int] = [:]
        for iteration in 0..<Self.pkcs12Iterations {
            let mutated = Data(mutator.mutate(seeds[iteration % seeds.count], splicingWith: seeds))
            var items: CFArray?
            let status = SecPKCS12Import(mutated as CFData, options, &items)
            statuses[status, default: 0] += 1
            #expect(
                [errSecSuccess, errSecDecode, errSecAuthFailed].contains(status),
                "iteration \(iteration): status \(status)"
            )
            if status == errSecSuccess {
                // Whatever imports is usable: each identity's certificate and key can be read back.
                for entry in (items as? [[String: Any]]) ?? [] {
                    guard let identity = entry[kSecImportItemIdentity as String] else { continue }
                    var certificate: SecCertificate?
                    var key: SecKey?
                    #expect(SecIdentityCopyCertificate(identity as! SecIdentity, &certificate) == errSecSuccess)
                    #expect(SecIdentityCopyPrivateKey(identity as! SecIdentity, &key) == errSecSuccess)
                }
            }
        }
        #expect((statuses[errSecDecode] ?? 0) + (statuses[errSecAuthFailed] ?? 0) > 0, "statuses: \(statuses)")
    }

    @Test func mutatedCertificatesParseOrAreRefused() throws {
        let seeds = try Seeds().certificates
        var mutator = ByteMutator(seed: 0x5EED_0DE7)
        var parsed = 0
        for iteration in 0..<Self.certificateIterations {
            let mutated = Data(mutator.mutate(seeds[iteration % seeds.count], splicingWith: seeds))
            guard let certificate = SecCertificateCreateWithData(nil, mutated as CFData) else { continue }
            parsed += 1
            // What parses keeps its exact bytes, and every field accessor answers without trapping.
            #expect(Data(referencing: SecCertificateCopyData(certificate)) == mutated, "iteration \(iteration)")
            _ = SecCertificateCopySubjectSummary(certificate)
            _ = SecCertificateCopyKey(certificate)
            _ = SecCertificateCopySerialNumberData(certificate, nil)
            _ = SecCertificateCopyNormalizedIssuerSequence(certificate)
            _ = SecCertificateCopyNormalizedSubjectSequence(certificate)
            var commonName: CFString?
            #expect(SecCertificateCopyCommonName(certificate, &commonName) == errSecSuccess)
        }
        #expect(parsed < Self.certificateIterations, "every mutation parsed: the mutator does nothing")
    }

    /// Key kinds fuzzed: the external representation of a generated key and the attributes to read it back.
    static func keySeeds() throws -> [(name: String, bytes: [UInt8], attributes: [String: Any])] {
        var seeds: [(String, [UInt8], [String: Any])] = []
        for (type, size) in [(kSecAttrKeyTypeECSECPrimeRandom, 256), (kSecAttrKeyTypeRSA, 2048)] {
            let parameters = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: size] as CFDictionary
            let (privateKey, error) = capturingCFError { SecKeyCreateRandomKey(parameters, $0) }
            try #require(error == nil)
            let key = try #require(privateKey)
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            for (which, keyClass, value) in [
                ("private", kSecAttrKeyClassPrivate, key), ("public", kSecAttrKeyClassPublic, publicKey),
            ] {
                let bytes = try #require(SecKeyCopyExternalRepresentation(value, nil))
                seeds.append(
                    (
                        "\(type) \(which)", [UInt8](Data(referencing: bytes)),
                        [kSecAttrKeyType as String: type, kSecAttrKeyClass as String: keyClass]
                    )
                )
            }
        }
        return seeds
    }

    /// Regression (found by `mutatedKeyRepresentationsLoadOrFailWithParam`): an RSA public key, and later an RSA
    /// private key, followed by extra bytes loaded with the tail silently dropped; now both fail with
    /// `errSecParam`, whatever the tail.
    @Test(arguments: ["public", "private"])
    func rsaKeyWithTrailingBytesIsRefused(keyClass: String) throws {
        let seed = try #require(try Self.keySeeds().first { $0.name.hasSuffix(keyClass) && $0.bytes.count > 200 })
        let tails: [[UInt8]] = [
            [0x00], [0x30, 0x00], [UInt8](repeating: 0xA5, count: 5), [0x02, 0x01, 0x00],
            [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x01, 0x01],
        ]
        for tail in tails {
            let (key, error) = capturingCFError {
                SecKeyCreateWithData(Data(seed.bytes + tail) as CFData, seed.attributes as CFDictionary, $0)
            }
            #expect(key == nil, "\(seed.name) + \(Self.hex(tail)) loaded")
            #expect(error.map { CFErrorGetCode($0) } == Int(errSecParam))
        }
        let (key, _) = capturingCFError {
            SecKeyCreateWithData(Data(seed.bytes) as CFData, seed.attributes as CFDictionary, $0)
        }
        #expect(key != nil, "the untouched key still loads")
    }

    /// Lower-case hex of `bytes`, so that a failing mutation can be pasted into a regression test.
    static func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test func mutatedKeyRepresentationsLoadOrFailWithParam() throws {
        var mutator = ByteMutator(seed: 0x5EED_0CE7)
        for seed in try Self.keySeeds() {
            var refused = 0
            for iteration in 0..<Self.keyIterations {
                let mutated = Data(mutator.mutate(seed.bytes, splicingWith: [seed.bytes]))
                let (key, error) = capturingCFError {
                    SecKeyCreateWithData(mutated as CFData, seed.attributes as CFDictionary, $0)
                }
                if let key {
                    #expect(error == nil)
                    // A key that loads exports the bytes it was made from.
                    let exported = SecKeyCopyExternalRepresentation(key, nil).map { Data(referencing: $0) }
                    #expect(
                        exported == mutated,
                        """
                        \(seed.name) iteration \(iteration): a loaded key exports other bytes; \
                        input \(Self.hex(mutated)), exported \(exported.map { Self.hex($0) } ?? "nothing")
                        """
                    )
                } else {
                    refused += 1
                    #expect(
                        error.map { CFErrorGetCode($0) } == Int(errSecParam),
                        "\(seed.name) iteration \(iteration): failed without errSecParam"
                    )
                }
            }
            #expect(refused > 0, "\(seed.name): every mutation loaded")
        }
    }
}
#endif
