#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing
import LatchkeyTesting

/// A temporary directory where the real `openssl` CLI makes keys, certificates and PKCS#12 files.
private struct OpenSSLWorkspace {
    let directory: URL

    init() throws {
        directory = try makeTemporaryDirectory("p12import")
        // A minimal config so that the host's openssl.cnf cannot change what `req` does.
        try write("[req]\ndistinguished_name = dn\n[dn]\n[v3_ca]\nbasicConstraints = critical,CA:true\n", to: "req.cnf")
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    func write(_ text: String, to name: String) throws { try Data(text.utf8).write(to: url(name)) }

    func read(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    /// Runs `openssl` with `arguments`, expecting success.
    func openssl(_ arguments: [String]) throws {
        let status = try runTool(["openssl"] + arguments, in: directory)
        #expect(status == 0, "openssl \(arguments.joined(separator: " "))")
    }

    /// Runs `openssl` with `arguments` and returns its standard output.
    func opensslOutput(_ arguments: [String]) throws -> String {
        _ = try Peer.require("openssl", package: "openssl")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try ProcessLaunch.run(process)
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }

    /// A self-signed certificate `<name>.pem` (DER in `<name>.der`) with its key `<name>.key`.
    func selfSigned(_ name: String, key: KeySpec, subject: String) throws {
        try openssl(
            ["req", "-x509", "-config", "req.cnf", "-extensions", "v3_ca", "-nodes", "-days", "30"]
                + key.newKeyArguments
                + ["-keyout", "\(name).key", "-out", "\(name).pem", "-subj", subject]
        )
        try openssl(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
    }

    /// A certificate `<name>.pem` for a new key `<name>.key`, signed by `issuer` (`<issuer>.pem`, `<issuer>.key`).
    func issued(_ name: String, by issuer: String, key: KeySpec, subject: String, isCA: Bool = false) throws {
        try openssl(
            ["req", "-new", "-config", "req.cnf", "-nodes"] + key.newKeyArguments
                + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject]
        )
        try openssl(
            [
                "x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key",
                "-set_serial", String(Int.random(in: 1000...999_999)), "-days", "30", "-out", "\(name).pem",
            ] + (isCA ? ["-extfile", "req.cnf", "-extensions", "v3_ca"] : [])
        )
        try openssl(["x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"])
    }

    /// `openssl pkcs12 -export` of `<name>.key` and `<name>.pem` into `<output>`, with extra arguments.
    func export(_ name: String, to output: String, password: String = "secret", _ extra: [String] = []) throws {
        try openssl(
            [
                "pkcs12", "-export", "-inkey", "\(name).key", "-in", "\(name).pem", "-name", "My Label",
                "-passout", "pass:\(password)", "-out", output,
            ] + extra
        )
    }

    /// The `localKeyID` openssl reports for the key bag of `file`.
    func localKeyID(_ file: String, password: String = "secret") throws -> Data? {
        let info = try opensslOutput(["pkcs12", "-in", file, "-info", "-nodes", "-passin", "pass:\(password)"])
        guard let line = info.split(separator: "\n").first(where: { $0.contains("localKeyID:") }) else { return nil }
        let hex = line.split(separator: ":", maxSplits: 1)[1].split(separator: " ")
        return Data(hex.compactMap { UInt8($0, radix: 16) })
    }
}

/// Key types `openssl req -newkey` makes, with the signature algorithm used to check them.
struct KeySpec: Sendable, CustomStringConvertible {
    let description: String
    let newKeyArguments: [String]
    let signature: String

    static let p256 = KeySpec(
        description: "P-256",
        newKeyArguments: ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"],
        signature: kSecKeyAlgorithmECDSASignatureMessageX962SHA256.rawValue as String
    )
    static let p384 = KeySpec(
        description: "P-384",
        newKeyArguments: ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:secp384r1"],
        signature: kSecKeyAlgorithmECDSASignatureMessageX962SHA256.rawValue as String
    )
    static let p521 = KeySpec(
        description: "P-521",
        newKeyArguments: ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:secp521r1"],
        signature: kSecKeyAlgorithmECDSASignatureMessageX962SHA256.rawValue as String
    )
    static let rsa2048 = KeySpec(
        description: "RSA-2048",
        newKeyArguments: ["-newkey", "rsa:2048"],
        signature: kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256.rawValue as String
    )
}

/// Calls `SecPKCS12Import` and returns its status and result dictionaries.
private func importP12(_ data: Data, passphrase: Any? = "secret") -> (OSStatus, [[String: Any]]?) {
    var options: [String: Any] = [:]
    if let passphrase { options[kSecImportExportPassphrase as String] = passphrase }
    var items: CFArray?
    let status = SecPKCS12Import(data as CFData, options as CFDictionary, &items)
    return (status, items.map { $0 as? [[String: Any]] ?? [] })
}

/// The identity of a result dictionary.
private func identity(_ item: [String: Any]) throws -> SecIdentity {
    try #require(item[kSecImportItemIdentity as String] as? SecIdentity)
}

/// The DER of each certificate in a result's chain.
private func chainDER(_ item: [String: Any]) throws -> [Data] {
    let chain = try #require(item[kSecImportItemCertChain as String] as? [SecCertificate])
    return chain.map { Data(referencing: SecCertificateCopyData($0)) }
}

/// Checks that the identity's private key signs a message that its public key and openssl (with the public key
/// of the certificate file `certificate`) verify.
private func expectSigns(_ identity: SecIdentity, _ spec: KeySpec, certificate: String, in workspace: OpenSSLWorkspace)
    throws
{
    var key: SecKey?
    #expect(SecIdentityCopyPrivateKey(identity, &key) == errSecSuccess)
    let privateKey = try #require(key)
    let algorithm = SecKeyAlgorithm(rawValue: spec.signature as CFString)
    let message = Data("signed by an imported identity".utf8)
    let (signature, signError) = capturingCFError {
        SecKeyCreateSignature(privateKey, algorithm, message as CFData, $0)
    }
    #expect(signError == nil)
    let signed = try #require(signature.map { Data(referencing: $0) })
    let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
    let (valid, verifyError) = capturingCFError {
        SecKeyVerifySignature(publicKey, algorithm, message as CFData, signed as CFData, $0)
    }
    #expect(valid && verifyError == nil)
    // Cross-check with openssl and the certificate's own public key.
    try message.write(to: workspace.url("message.bin"))
    try signed.write(to: workspace.url("signature.bin"))
    try workspace.openssl(["x509", "-in", certificate, "-pubkey", "-noout", "-out", "certificate-pub.pem"])
    try workspace.openssl(
        [
            "dgst", "-sha256", "-verify", "certificate-pub.pem", "-signature", "signature.bin", "message.bin",
        ]
    )
}

/// DER encoding of an element (test-side builder for hand-made PKCS#12 structures).
private func der(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    var length: [UInt8] = []
    var remaining = content.count
    if remaining < 0x80 {
        length = [UInt8(remaining)]
    } else {
        while remaining > 0 {
            length.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        }
        length.insert(0x80 | UInt8(length.count), at: 0)
    }
    return [tag] + length + content
}

/// The (tag, content) elements of DER `bytes`, in order (definite lengths only).
private func derElements(_ bytes: ArraySlice<UInt8>) -> [(
    tag: UInt8, content: ArraySlice<UInt8>, whole: ArraySlice<UInt8>
)] {
    var result: [(tag: UInt8, content: ArraySlice<UInt8>, whole: ArraySlice<UInt8>)] = []
    var index = bytes.startIndex
    while index < bytes.endIndex {
        let start = index
        let tag = bytes[index]
        var length = Int(bytes[index + 1])
        index += 2
        if length >= 0x80 {
            let count = length & 0x7F
            length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        result.append((tag, bytes[index..<index + length], bytes[start..<index + length]))
        index += length
    }
    return result
}

/// `tag`'s constructed form with an indefinite length around `content` (BER, X.690 section 8.1.3.6).
private func indefinite(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    [tag | 0x20, 0x80] + content + [0, 0]
}

/// An OCTET STRING in BER's constructed form: 16-byte primitive segments inside `tag` (0x24, or 0xA0 for an
/// `[0] IMPLICIT OCTET STRING`), with an indefinite length.
private func segmentedOctets(_ bytes: ArraySlice<UInt8>, tag: UInt8 = 0x24) -> [UInt8] {
    var segments: [UInt8] = []
    var index = bytes.startIndex
    while index < bytes.endIndex {
        let end = min(index + 16, bytes.endIndex)
        segments += der(0x04, Array(bytes[index..<end]))
        index = end
    }
    return indefinite(tag, segments)
}

/// openssl's DER `pfx` re-encoded as BER the way Windows and Java write it: indefinite lengths for the PFX, its
/// ContentInfo and MacData, and the authenticated safe's OCTET STRING in segments (its octets, and so the MAC,
/// unchanged). With `reencodingAuthSafe` the authenticated safe's own ContentInfos, plain data and encrypted
/// content are re-encoded the same way (which invalidates a MAC: use a file without one).
private func berPFX(_ pfx: [UInt8], reencodingAuthSafe: Bool) -> [UInt8] {
    let parts = derElements(derElements(pfx[...])[0].content)  // version, authSafe ContentInfo, macData
    let contentInfo = derElements(parts[1].content)  // contentType, [0] EXPLICIT OCTET STRING
    let authSafe = derElements(contentInfo[1].content)[0].content
    var safe = Array(authSafe)
    if reencodingAuthSafe {
        var infos: [UInt8] = []
        for info in derElements(derElements(authSafe)[0].content) {
            let fields = derElements(info.content)  // contentType, [0] EXPLICIT content
            let inner = derElements(fields[1].content)[0]
            var content = Array(inner.whole)
            if inner.tag == 0x04 {  // data: the SafeContents' octets
                content = segmentedOctets(inner.content)
            } else if inner.tag == 0x30 {  // EncryptedData { version, EncryptedContentInfo }
                let encrypted = derElements(inner.content)
                let contentFields = derElements(encrypted[1].content)  // type, algorithm, [0] IMPLICIT octets
                let encryptedInfo = indefinite(
                    0x30,
                    Array(contentFields[0].whole) + Array(contentFields[1].whole)
                        + segmentedOctets(contentFields[2].content, tag: 0xA0)
                )
                content = indefinite(0x30, Array(encrypted[0].whole) + encryptedInfo)
            }
            infos += indefinite(0x30, Array(fields[0].whole) + indefinite(0xA0, content))
        }
        safe = indefinite(0x30, infos)
    }
    let macData = parts.count == 3 ? indefinite(0x30, Array(parts[2].content)) : []
    let authSafeInfo = indefinite(0x30, Array(contentInfo[0].whole) + indefinite(0xA0, segmentedOctets(safe[...])))
    return indefinite(0x30, Array(parts[0].whole) + authSafeInfo + macData)
}

/// Bytes from openssl's colon-separated or plain hex output.
private func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter(\.isHexDigit)
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}

struct PKCS12ImportTests {
    @Test func constantsHaveApplesRawValues() {
        #expect(kSecImportExportPassphrase as String == "passphrase")
        #expect(kSecImportItemIdentity as String == "identity")
        #expect(kSecImportItemCertChain as String == "chain")
        #expect(kSecImportItemKeyID as String == "keyid")
        #expect(kSecImportItemLabel as String == "label")
        #expect(kSecImportItemTrust as String == "trust")
    }

    @Test(arguments: [KeySpec.p256, .p384, .p521, .rsa2048])
    func importsOpenSSLDefaultFile(_ spec: KeySpec) throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: spec, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "a.p12")

        let (status, items) = importP12(try workspace.read("a.p12"))
        #expect(status == errSecSuccess)
        let item = try #require(items?.first)
        #expect(items?.count == 1)
        let imported = try identity(item)
        var certificate: SecCertificate?
        #expect(SecIdentityCopyCertificate(imported, &certificate) == errSecSuccess)
        let leafDER = try workspace.read("leaf.der")
        #expect(certificate.map { Data(referencing: SecCertificateCopyData($0)) } == leafDER)
        #expect(try chainDER(item) == [leafDER])
        #expect(item[kSecImportItemLabel as String] as? String == "My Label")
        let keyID = try #require(try workspace.localKeyID("a.p12"))
        #expect(item[kSecImportItemKeyID as String] as? Data == keyID)
        try expectSigns(imported, spec, certificate: "leaf.pem", in: workspace)
    }

    @Test func resultHoldsIdentityChainTrustLabelAndKeyID() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .p256, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "a.p12")
        let (status, items) = importP12(try workspace.read("a.p12"))
        #expect(status == errSecSuccess)
        let item = try #require(items?.first)
        #expect(Set(item.keys) == ["identity", "chain", "trust", "keyid", "label"])
        // The trust is the chain with the basic policy, as Apple's: iOS code force-casts it.
        let trust = item[kSecImportItemTrust as String] as! SecTrust
        #expect(SecTrustGetCertificateCount(trust) == 1)
        let leaf = try #require((item[kSecImportItemCertChain as String] as? [SecCertificate])?.first)
        var error: CFError?
        #expect(!SecTrustEvaluateWithError(trust, &error), "a self-signed leaf is not trusted by the system roots")
        #expect(SecTrustSetAnchorCertificates(trust, [leaf] as CFArray) == errSecSuccess)
        #expect(SecTrustEvaluateWithError(trust, &error), "\(String(describing: error))")
    }

    @Test func chainIsLeafThenIssuersInOrderWhateverTheFileOrder() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("root", key: .p256, subject: "/O=Latchkey Tests/CN=Root CA")
        try workspace.issued("intermediate", by: "root", key: .p256, subject: "/CN=Intermediate CA", isCA: true)
        try workspace.issued("leaf", by: "intermediate", key: .rsa2048, subject: "/CN=leaf.example")
        // The extra certificates go in root-first, the reverse of the chain order.
        let extra =
            try String(decoding: workspace.read("root.pem"), as: UTF8.self)
            + String(decoding: workspace.read("intermediate.pem"), as: UTF8.self)
        try workspace.write(extra, to: "extra.pem")
        try workspace.export("leaf", to: "chain.p12", ["-certfile", "extra.pem"])

        let (status, items) = importP12(try workspace.read("chain.p12"))
        #expect(status == errSecSuccess)
        let item = try #require(items?.first)
        #expect(items?.count == 1)
        #expect(
            try chainDER(item) == [
                workspace.read("leaf.der"), workspace.read("intermediate.der"), workspace.read("root.der"),
            ]
        )
        try expectSigns(try identity(item), .rsa2048, certificate: "leaf.pem", in: workspace)
    }

    @Test(
        arguments: [
            ["-keypbe", "AES-128-CBC", "-certpbe", "AES-128-CBC"],
            ["-keypbe", "AES-192-CBC", "-certpbe", "AES-192-CBC"],
            ["-macalg", "sha1"],
            ["-macalg", "sha384"],
            ["-macalg", "sha512"],
            ["-certpbe", "NONE"],
            ["-keypbe", "NONE", "-certpbe", "NONE"],
            ["-iter", "1", "-maciter"],
            ["-nomac"],
        ]
    )
    func importsOpenSSLExportVariants(_ arguments: [String]) throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .p256, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "v.p12", arguments)
        let (status, items) = importP12(try workspace.read("v.p12"))
        #expect(status == errSecSuccess)
        let item = try #require(items?.first)
        #expect(try chainDER(item) == [workspace.read("leaf.der")])
        #expect(item[kSecImportItemLabel as String] as? String == "My Label")
        try expectSigns(try identity(item), .p256, certificate: "leaf.pem", in: workspace)
    }

    @Test func emptyPassphraseImportsWithEmptyStringOrWithoutOption() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .p256, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "empty.p12", password: "")
        let data = try workspace.read("empty.p12")
        for passphrase: Any? in ["", nil] {
            let (status, items) = importP12(data, passphrase: passphrase)
            #expect(status == errSecSuccess)
            #expect(items?.count == 1)
        }
        #expect(importP12(data, passphrase: "not empty").0 == errSecAuthFailed)
    }

    @Test func nonASCIIPassphraseImports() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .p256, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "u.p12", password: "pässwörd-€")
        #expect(importP12(try workspace.read("u.p12"), passphrase: "pässwörd-€").0 == errSecSuccess)
    }

    @Test func wrongPassphraseIsAuthFailed() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .rsa2048, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "a.p12")
        var items: CFArray?
        let options = [kSecImportExportPassphrase as String: "wrong"] as CFDictionary
        #expect(SecPKCS12Import(try workspace.read("a.p12") as CFData, options, &items) == -25293)
        #expect(items == nil)
    }

    @Test func fileWithoutMACImportsAndRejectsWrongPassphrase() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .p256, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "nomac.p12", ["-nomac"])
        let data = try workspace.read("nomac.p12")
        #expect(importP12(data).0 == errSecSuccess)
        #expect(importP12(data, passphrase: "wrong").0 == errSecAuthFailed)
    }

    @Test func legacyEncryptionGivesDecodeError() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .p256, subject: "/CN=leaf.example")
        let made = try runTool(
            [
                "openssl", "pkcs12", "-export", "-legacy", "-inkey", "leaf.key", "-in", "leaf.pem",
                "-passout", "pass:secret", "-out", "legacy.p12",
            ],
            in: workspace.directory
        )
        if made == 0 {
            #expect(importP12(try workspace.read("legacy.p12")).0 == errSecDecode)
            #expect(importP12(try workspace.read("legacy.p12"), passphrase: "wrong").0 == errSecAuthFailed)
        }
        // Independently of the legacy provider: PBES2 with an unknown cipher OID (AES-256-CBC's last arc changed)
        // under -nomac, so no MAC hides the algorithm check.
        try workspace.export("leaf", to: "nomac.p12", ["-nomac"])
        var bytes = [UInt8](try workspace.read("nomac.p12"))
        let aes256CBC: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2A]
        var patched = 0
        var index = 0
        while index + aes256CBC.count <= bytes.count {
            if Array(bytes[index..<index + aes256CBC.count]) == aes256CBC {
                bytes[index + aes256CBC.count - 1] = 0x2F
                patched += 1
            }
            index += 1
        }
        #expect(patched >= 1)
        #expect(importP12(Data(bytes)).0 == errSecDecode)
    }

    @Test func unsupportedKeyTypeGivesDecodeError() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        let ed25519 = KeySpec(description: "Ed25519", newKeyArguments: ["-newkey", "ed25519"], signature: "")
        try workspace.selfSigned("leaf", key: ed25519, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "ed.p12")
        #expect(importP12(try workspace.read("ed.p12")).0 == errSecDecode)
    }

    @Test func certificatesWithoutKeyGiveAnEmptyArray() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .p256, subject: "/CN=leaf.example")
        try workspace.openssl(
            ["pkcs12", "-export", "-nokeys", "-in", "leaf.pem", "-passout", "pass:secret", "-out", "certs.p12"]
        )
        let (status, items) = importP12(try workspace.read("certs.p12"))
        #expect(status == errSecSuccess)
        #expect(items?.isEmpty == true)
    }

    @Test func pbmac1MACIsVerified() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .p256, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "nomac.p12", ["-nomac"])
        // PFX ::= SEQUENCE { version, authSafe ContentInfo { data, [0] { OCTET STRING authSafe } } }
        let pfx = derElements([UInt8](try workspace.read("nomac.p12"))[...])[0]
        let parts = derElements(pfx.content)
        let authSafe = derElements(derElements(parts[1].content)[1].content)[0].content
        try Data(authSafe).write(to: workspace.url("authsafe.bin"))
        let salt: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
        let saltHex = salt.map { String(format: "%02x", $0) }.joined()
        let key = try workspace.opensslOutput(
            [
                "kdf", "-keylen", "32", "-kdfopt", "digest:SHA256", "-kdfopt", "pass:secret", "-kdfopt",
                "hexsalt:\(saltHex)", "-kdfopt", "iter:1000", "PBKDF2",
            ]
        )
        let keyHex = hexBytes(key).map { String(format: "%02x", $0) }.joined()
        let mac = hexBytes(
            try workspace.opensslOutput(
                ["mac", "-digest", "SHA256", "-macopt", "hexkey:\(keyHex)", "-in", "authsafe.bin", "HMAC"]
            )
        )
        #expect(mac.count == 32)
        let hmacWithSHA256 = der(0x30, der(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x02, 0x09]) + [0x05, 0x00])
        let pbkdf2 = der(
            0x30,
            der(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0C])
                + der(0x30, der(0x04, salt) + der(0x02, [0x03, 0xE8]) + der(0x02, [32]) + hmacWithSHA256)
        )
        let pbmac1 = der(
            0x30,
            der(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0E]) + der(0x30, pbkdf2 + hmacWithSHA256)
        )
        let macData = der(
            0x30,
            der(0x30, pbmac1 + der(0x04, mac)) + der(0x04, [0, 0, 0, 0, 0, 0, 0, 0]) + der(0x02, [1])
        )
        let rebuilt = Data(der(0x30, Array(parts[0].whole) + Array(parts[1].whole) + macData))
        #expect(importP12(rebuilt).0 == errSecSuccess)
        #expect(importP12(rebuilt, passphrase: "wrong").0 == errSecAuthFailed)
    }

    /// BER as Windows and Java write it (indefinite lengths, constructed OCTET STRINGs), read by swift-asn1's
    /// `BER.parse`: outside the authenticated safe with the MAC still valid, and inside it in a file without MAC.
    @Test func berIndefiniteLengthsAndConstructedOctetStringsImport() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .p256, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "a.p12")
        try workspace.export("leaf", to: "nomac.p12", ["-nomac"])
        let (derStatus, derItems) = importP12(try workspace.read("a.p12"))
        #expect(derStatus == errSecSuccess)
        let expected = try chainDER(try #require(derItems?.first))
        for (file, reencodingAuthSafe) in [("a.p12", false), ("nomac.p12", true)] {
            let original = [UInt8](try workspace.read(file))
            let ber = berPFX(original, reencodingAuthSafe: reencodingAuthSafe)
            #expect(ber != original && ber[1] == 0x80)
            let (status, items) = importP12(Data(ber))
            #expect(status == errSecSuccess, "\(file)")
            let item = try #require(items?.first, "\(file)")
            #expect(try chainDER(item) == expected)
            #expect(item[kSecImportItemLabel as String] as? String == "My Label")
            #expect(importP12(Data(ber), passphrase: "wrong").0 == errSecAuthFailed, "\(file)")
        }
    }

    @Test func nonStringPassphraseIsParamError() throws {
        #expect(importP12(Data([0x30, 0x00]), passphrase: 42).0 == errSecParam)
    }

    @Test func emptyGarbageAndTruncatedInputGiveDecodeError() throws {
        #expect(importP12(Data()).0 == errSecDecode)
        #expect(importP12(Data("not a pkcs12 file".utf8)).0 == errSecDecode)
        var generator = SystemRandomNumberGenerator()
        for length in [1, 2, 16, 1000] {
            let random = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(importP12(random).0 == errSecDecode)
        }
        // Deeply nested indefinite lengths must not exhaust the stack.
        #expect(importP12(Data([UInt8](repeating: 0x30, count: 20_000).flatMap { [$0, 0x80] })).0 == errSecDecode)

        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .p256, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "a.p12", ["-iter", "1", "-maciter"])
        let data = try workspace.read("a.p12")
        for length in stride(from: 0, to: data.count, by: 13) {
            #expect(importP12(data.prefix(length)).0 == errSecDecode, "prefix \(length)")
        }
    }

    @Test func flippedByteIsRejectedWithoutCrash() throws {
        let workspace = try OpenSSLWorkspace()
        defer { workspace.remove() }
        try workspace.selfSigned("leaf", key: .p256, subject: "/CN=leaf.example")
        try workspace.export("leaf", to: "a.p12", ["-iter", "1", "-maciter"])
        try workspace.export("leaf", to: "nomac.p12", ["-iter", "1", "-nomac"])
        let data = [UInt8](try workspace.read("a.p12"))
        // A byte inside the encrypted certificate (late in the authenticated safe): the MAC catches it.
        var flipped = data
        flipped[data.count / 2] ^= 0x01
        #expect(importP12(Data(flipped)).0 == errSecAuthFailed)
        // Every byte flipped in turn, with and without MAC: an error or a success, never a crash.
        for file in [data, [UInt8](try workspace.read("nomac.p12"))] {
            for index in stride(from: 0, to: file.count, by: 5) {
                var copy = file
                copy[index] ^= 0x80
                let status = importP12(Data(copy)).0
                #expect([errSecSuccess, errSecDecode, errSecAuthFailed].contains(status), "byte \(index)")
            }
        }
    }
}
#endif
