#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing

/// A certificate and its key made by `openssl req -x509` in a temporary directory.
private struct OpenSSLCertificate {
    let directory: URL
    let der: Data

    init(
        subject: String,
        newKey: [String] = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"],
        extraArguments: [String] = []
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("seccert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // string_mask = default makes openssl write PrintableString where it can (normalized by the keychain).
        try Data("[req]\ndistinguished_name = dn\nstring_mask = default\n[dn]\n".utf8)
            .write(to: directory.appendingPathComponent("req.cnf"))
        try Self.run(
            [
                "openssl", "req", "-x509", "-config", "req.cnf", "-nodes", "-keyout", "key.pem", "-out", "cert.der",
                "-outform", "DER", "-days", "30", "-subj", subject,
            ]
                + newKey + extraArguments,
            in: directory
        )
        der = try Data(contentsOf: directory.appendingPathComponent("cert.der"))
    }

    /// The uncompressed public point of the certificate's key, as openssl exports it.
    func publicPoint() throws -> Data {
        try Self.run(
            ["openssl", "pkey", "-in", "key.pem", "-pubout", "-outform", "DER", "-out", "pub.der"],
            in: directory
        )
        return try Data(contentsOf: directory.appendingPathComponent("pub.der")).dropFirst(26)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    static func run(_ arguments: [String], in directory: URL) throws {
        #expect(try runTool(arguments, in: directory) == 0, "\(arguments.joined(separator: " "))")
    }
}

struct SecCertificateTests {
    @Test func parsesOpenSSLCertificateAndGivesBackItsBytesAndNames() throws {
        let generated = try OpenSSLCertificate(subject: "/O=Example Org/CN=example.test")
        defer { generated.remove() }
        let certificate = try #require(SecCertificateCreateWithData(nil, generated.der as CFData))
        #expect(Data(referencing: SecCertificateCopyData(certificate)) == generated.der)
        #expect(SecCertificateCopySubjectSummary(certificate).map { $0 as String } == "example.test")
        var commonName: CFString?
        #expect(SecCertificateCopyCommonName(certificate, &commonName) == errSecSuccess)
        #expect(commonName.map { $0 as String } == "example.test")
    }

    @Test func garbageIsNotACertificate() {
        for bytes in [
            Data(), Data("not a certificate".utf8), Data([0x30, 0x03, 0x02, 0x01, 0x00]), Data([0x30, 0x82]),
        ] {
            #expect(SecCertificateCreateWithData(nil, bytes as CFData) == nil)
        }
    }

    @Test func addByRefDerivesAttributesAndReturnsARef() throws {
        let generated = try OpenSSLCertificate(
            subject: "/C=us/O=Example   Org/CN=cert.example.test",
            extraArguments: ["-addext", "subjectKeyIdentifier=hash"]
        )
        defer { generated.remove() }
        let certificate = try #require(SecCertificateCreateWithData(nil, generated.der as CFData))
        try withTemporaryKeychain { _ in
            #expect(
                Sec.add([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate])
                    == errSecSuccess
            )
            #expect(
                Sec.add([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate])
                    == errSecDuplicateItem
            )
            let (status, result) = Sec.copy([
                kSecClass as String: kSecClassCertificate,
                kSecAttrLabel as String: "cert.example.test",
                kSecReturnAttributes as String: true,
                kSecReturnRef as String: true,
            ])
            #expect(status == errSecSuccess)
            let attributes = try #require(result as? [String: Any])
            #expect(attributes["ctyp"] as? Int == 3)
            #expect(attributes["cenc"] as? Int == 3)
            #expect(attributes["v_Ref"] as? SecCertificate == certificate)
            // C, O and CN are PrintableStrings: upper-cased, blanks collapsed, lengths re-encoded.
            let subject = try #require(attributes["subj"] as? Data)
            #expect(subject.range(of: Data("EXAMPLE ORG".utf8)) != nil)
            #expect(subject.range(of: Data("US".utf8)) != nil)
            #expect(subject.range(of: Data("CERT.EXAMPLE.TEST".utf8)) != nil)
            #expect(subject.range(of: Data("Example".utf8)) == nil)
            #expect(attributes["issr"] as? Data == subject)  // self-signed
            #expect((attributes["slnr"] as? Data).map(\.isEmpty) == false)
            #expect((attributes["skid"] as? Data)?.count == 20)
            // pkhh equals the klbl of the certificate's key (docs/apple-semantics.md §2.1).
            let point = try generated.publicPoint()
            let key = try #require(
                SecKeyCreateWithData(
                    point as CFData,
                    [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPublic]
                        as CFDictionary,
                    nil
                )
            )
            let keyAttributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
            #expect(attributes["pkhh"] as? Data == keyAttributes["klbl"] as? Data)

            let (refStatus, reference) = Sec.copy([
                kSecClass as String: kSecClassCertificate,
                kSecAttrPublicKeyHash as String: try #require(attributes["pkhh"] as? Data),
                kSecReturnRef as String: true,
            ])
            #expect(refStatus == errSecSuccess)
            #expect(reference as? SecCertificate == certificate)
        }
    }

    /// Known difference from Apple (`SecCertificate`): a certificate whose algorithm swift-certificates cannot use
    /// (Ed448, RSA under 2048 bits, DSA) parses, as by Apple, with its fields, but `SecCertificateCopyKey` is `nil`.
    @Test(arguments: [
        ["-newkey", "ed448"], ["-newkey", "rsa:1024"], ["-newkey", "dsa:dsa.pem", "-sha256"],
    ])
    func certificateWithAnAlgorithmX509LacksStillParses(newKey: [String]) throws {
        let directory = try makeTemporaryDirectory("seccert-unsupported")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("[req]\ndistinguished_name = dn\n[dn]\n".utf8).write(to: directory.appendingPathComponent("req.cnf"))
        if newKey.contains("dsa:dsa.pem") {
            try OpenSSLCertificate.run(
                ["openssl", "genpkey", "-genparam", "-algorithm", "DSA", "-out", "dsa.pem"],
                in: directory
            )
        }
        try OpenSSLCertificate.run(
            ["openssl", "req", "-x509", "-config", "req.cnf", "-nodes", "-keyout", "key.pem"] + newKey
                + [
                    "-out", "cert.der", "-outform", "DER", "-days", "30", "-set_serial", "4660", "-subj",
                    "/O=Legacy Org/CN=legacy.example.test",
                ],
            in: directory
        )
        let der = try Data(contentsOf: directory.appendingPathComponent("cert.der"))
        let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))
        #expect(Data(referencing: SecCertificateCopyData(certificate)) == der)
        #expect(SecCertificateCopySubjectSummary(certificate).map { $0 as String } == "legacy.example.test")
        let serial = try #require(SecCertificateCopySerialNumberData(certificate, nil))
        #expect(Data(referencing: serial) == Data([0x12, 0x34]))
        #expect(SecCertificateCopyKey(certificate) == nil)
        // Damaged structure is still refused.
        #expect(SecCertificateCreateWithData(nil, der.dropLast() as CFData) == nil)
    }

    @Test func ed25519CertificateParsesWithoutASecKey() throws {
        let generated = try OpenSSLCertificate(subject: "/CN=ed25519.example.test", newKey: ["-newkey", "ed25519"])
        defer { generated.remove() }
        let certificate = try #require(SecCertificateCreateWithData(nil, generated.der as CFData))
        #expect(SecCertificateCopySubjectSummary(certificate).map { $0 as String } == "ed25519.example.test")
        #expect(SecCertificateCopyKey(certificate) == nil)
    }

    @Test func fieldsMatchWhatOpenSSLReports() throws {
        let generated = try OpenSSLCertificate(
            subject: "/C=DE/O=Example  Org/OU=Unit/CN=fields.example.test",
            extraArguments: ["-addext", "subjectKeyIdentifier=hash", "-set_serial", "0x00F1E2D3C4B5A69788"]
        )
        defer { generated.remove() }
        let certificate = try #require(SecCertificateCreateWithData(nil, generated.der as CFData))
        // The serial's content octets keep the leading zero its high bit needs.
        let serial = Data(referencing: try #require(SecCertificateCopySerialNumberData(certificate, nil)))
        #expect(serial == Data([0x00, 0xF1, 0xE2, 0xD3, 0xC4, 0xB5, 0xA6, 0x97, 0x88]))
        // The normalized subject is a SEQUENCE of the certificate's SETs, in order, PrintableStrings upper-cased.
        let subject = Data(referencing: try #require(SecCertificateCopyNormalizedSubjectSequence(certificate)))
        let issuer = Data(referencing: try #require(SecCertificateCopyNormalizedIssuerSequence(certificate)))
        #expect(subject == issuer)
        let text = String(decoding: subject, as: UTF8.self)
        let order = ["DE", "EXAMPLE ORG", "UNIT", "FIELDS.EXAMPLE.TEST"].map { text.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil })
        #expect(order.compactMap { $0 } == order.compactMap { $0 }.sorted())
        #expect(subject.first == 0x30)
        #expect(text.range(of: "Example") == nil)
        // The certificate's key is the one openssl made.
        let key = try #require(SecCertificateCopyKey(certificate))
        #expect(
            SecKeyCopyExternalRepresentation(key, nil).map { Data(referencing: $0) } == (try generated.publicPoint())
        )
    }

    @Test func callerLabelWinsOverSubjectSummary() throws {
        let generated = try OpenSSLCertificate(subject: "/CN=labelled.example.test")
        defer { generated.remove() }
        let certificate = try #require(SecCertificateCreateWithData(nil, generated.der as CFData))
        try withTemporaryKeychain { _ in
            #expect(
                Sec.add([
                    kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
                    kSecAttrLabel as String: "mine",
                ]) == errSecSuccess
            )
            let (status, result) = Sec.copy([
                kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "mine",
                kSecReturnAttributes as String: true,
            ])
            #expect(status == errSecSuccess)
            // Without extensions openssl writes an X.509 v1 certificate: ctyp 1, no skid.
            let attributes = try #require(result as? [String: Any])
            #expect(attributes["ctyp"] as? Int == 1)
            #expect(attributes["skid"] == nil)
        }
    }
}
#endif
