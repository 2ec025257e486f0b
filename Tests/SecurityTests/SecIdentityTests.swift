#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing

/// A P-256 key and a self-signed certificate for it, made by the `openssl` command line.
private struct OpenSSLIdentity {
    let certificate: SecCertificate
    let privateKey: SecKey
    /// The serial number as openssl prints it (upper-case hex).
    let serialHex: String

    init(commonName: String) throws {
        let directory = try makeTemporaryDirectory("secidentity")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("[req]\ndistinguished_name = dn\n[dn]\n".utf8).write(to: directory.appendingPathComponent("req.cnf"))
        try #require(
            try runTool(
                [
                    "openssl", "req", "-x509", "-config", "req.cnf", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "key.pem", "-out", "cert.der",
                    "-outform", "DER", "-days", "30", "-subj", "/O=Example/CN=\(commonName)",
                ],
                in: directory
            ) == 0
        )
        try #require(
            try runTool(["openssl", "ec", "-in", "key.pem", "-outform", "DER", "-out", "key.der"], in: directory) == 0
        )
        try #require(
            try runTool(
                ["sh", "-c", "openssl x509 -inform DER -in cert.der -noout -serial > serial.txt"],
                in: directory
            ) == 0
        )
        let der = try Data(contentsOf: directory.appendingPathComponent("cert.der"))
        certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))
        // SEC1 ECPrivateKey for P-256: 30 77 02 01 01 04 20 <scalar> a0 0a <oid> a1 44 03 42 00 <point>.
        let sec1 = try Data(contentsOf: directory.appendingPathComponent("key.der"))
        try #require(sec1.count == 121)
        let scalar = sec1[sec1.startIndex + 7..<sec1.startIndex + 39]
        let point = sec1.suffix(65)
        privateKey = try #require(
            SecKeyCreateWithData(
                (point + scalar) as CFData,
                [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPrivate]
                    as CFDictionary,
                nil
            )
        )
        let serialLine = try String(contentsOf: directory.appendingPathComponent("serial.txt"), encoding: .utf8)
        serialHex = serialLine.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(
            of: "serial=",
            with: ""
        )
    }

    /// Stores the certificate and the key as separate items, as iOS apps do.
    func storeParts(certificateLabel: String = "Alice's certificate", tag: String = "com.example.alice") {
        #expect(
            Sec.add([
                kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
                kSecAttrLabel as String: certificateLabel,
            ]) == errSecSuccess
        )
        #expect(
            Sec.add([
                kSecClass as String: kSecClassKey, kSecValueRef as String: privateKey,
                kSecAttrApplicationTag as String: Data(tag.utf8), kSecAttrLabel as String: "Alice's key",
            ]) == errSecSuccess
        )
    }
}

private func identityQuery(_ extra: [String: Any] = [:]) -> [String: Any] {
    var query: [String: Any] = [kSecClass as String: kSecClassIdentity]
    query.merge(extra) { $1 }
    return query
}

private func parts(of identity: SecIdentity) -> (SecCertificate?, SecKey?) {
    var certificate: SecCertificate?
    var key: SecKey?
    #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
    #expect(SecIdentityCopyPrivateKey(identity, &key) == errSecSuccess)
    return (certificate, key)
}

struct SecIdentityTests {
    @Test func aStoredKeyAndItsCertificateFormAnIdentityThatSigns() throws {
        let made = try OpenSSLIdentity(commonName: "alice.example.test")
        try withTemporaryKeychain { _ in
            made.storeParts()
            let (status, result) = Sec.copy(identityQuery([kSecReturnRef as String: true]))
            #expect(status == errSecSuccess)
            let identity = try #require(result as? SecIdentity)
            let (certificate, key) = parts(of: identity)
            #expect(certificate == made.certificate)
            #expect(key == made.privateKey)
            // The identity's key signs; the certificate's public key verifies.
            let message = Data("sign me".utf8) as CFData
            let privateKey = try #require(key)
            let signature = try #require(
                SecKeyCreateSignature(privateKey, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, message, nil)
            )
            let identityCertificate = try #require(certificate)
            let publicKey = try #require(SecCertificateCopyKey(identityCertificate))
            #expect(
                SecKeyVerifySignature(
                    publicKey,
                    kSecKeyAlgorithmECDSASignatureMessageX962SHA256,
                    message,
                    signature,
                    nil
                )
            )
        }
    }

    @Test func referencesAreToldApartByTypeIDAsOnApple() throws {
        let made = try OpenSSLIdentity(commonName: "typeid.example.test")
        try withTemporaryKeychain { _ in
            made.storeParts()
            let (_, found) = Sec.copy([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true])
            let item = try #require(found)
            // The iOS idiom: check the type ID, then force-cast.
            #expect(CFGetTypeID(item) == SecIdentityGetTypeID())
            let identity = item as! SecIdentity
            #expect(parts(of: identity).0 == made.certificate)
            #expect(CFGetTypeID(made.certificate) == SecCertificateGetTypeID())
            #expect(CFGetTypeID(made.privateKey) == SecKeyGetTypeID())
            #expect(Set([SecKeyGetTypeID(), SecCertificateGetTypeID(), SecIdentityGetTypeID()]).count == 3)
            #expect(CFGetTypeID(made.privateKey) != CFDataGetTypeID())
        }
    }

    @Test func identityAttributesComeFromKeyAndCertificate() throws {
        let made = try OpenSSLIdentity(commonName: "attrs.example.test")
        try withTemporaryKeychain { _ in
            made.storeParts()
            let attributes = try #require(Sec.attributes(identityQuery([kSecReturnPersistentRef as String: true])))
            #expect(attributes["labl"] as? String == "Alice's certificate")  // the certificate's label wins
            #expect(attributes["atag"] as? Data == Data("com.example.alice".utf8))
            #expect(attributes["kcls"] as? Int == 1)
            #expect(attributes["pkhh"] as? Data == attributes["klbl"] as? Data)
            #expect(attributes["certdata"] == nil)
            let reference = try #require(attributes["v_PersistentRef"] as? Data)
            #expect(reference.prefix(4) == Data("idnt".utf8))
            // The persistent reference finds the identity again.
            let (status, result) = Sec.copy([
                kSecValuePersistentRef as String: reference, kSecReturnRef as String: true,
            ])
            #expect(status == errSecSuccess)
            #expect((result as? SecIdentity).map(parts(of:))?.0 == made.certificate)
            // kSecReturnData is the key's secret.
            let (_, data) = Sec.copy(identityQuery([kSecReturnData as String: true]))
            let keyData = try #require(SecKeyCopyExternalRepresentation(made.privateKey, nil))
            #expect(data as? Data == Data(referencing: keyData))
        }
    }

    @Test func identityQueriesFilterLikeApple() throws {
        let alice = try OpenSSLIdentity(commonName: "alice.example.test")
        let bob = try OpenSSLIdentity(commonName: "bob.example.test")
        try withTemporaryKeychain { _ in
            alice.storeParts(certificateLabel: "alice", tag: "tag.alice")
            bob.storeParts(certificateLabel: "bob", tag: "tag.bob")
            #expect(Sec.count(identityQuery()) == 2)
            // kSecAttrLabel matches the certificate's label, key attributes the key's.
            #expect(Sec.count(identityQuery([kSecAttrLabel as String: "bob"])) == 1)
            #expect(Sec.count(identityQuery([kSecAttrLabel as String: "Alice's key"])) == 0)
            #expect(Sec.count(identityQuery([kSecAttrApplicationTag as String: Data("tag.alice".utf8)])) == 1)
            let (byTag, result) = Sec.copy(
                identityQuery([kSecAttrApplicationTag as String: Data("tag.bob".utf8), kSecReturnRef as String: true])
            )
            #expect(byTag == errSecSuccess)
            #expect((result as? SecIdentity).map(parts(of:))?.0 == bob.certificate)
            // Certificate attributes the join does not expose are an SQL error on Apple: errSecNotAvailable.
            let hash = try #require(Sec.attributes(identityQuery())?["pkhh"] as? Data)
            #expect(Sec.copy(identityQuery([kSecAttrPublicKeyHash as String: hash])).0 == errSecNotAvailable)
            #expect(Sec.copy(identityQuery([kSecAttrCertificateType as String: 3])).0 == errSecNotAvailable)
            // The issuer may be given as a full DER Name (normalized client-side).
            let issuer = try #require(SecCertificateCopyNormalizedIssuerSequence(alice.certificate))
            #expect(Sec.count(identityQuery([kSecAttrIssuer as String: issuer])) == 1)
        }
    }

    @Test func aKeyWithoutCertificateOrACertificateWithoutKeyIsNoIdentity() throws {
        let alice = try OpenSSLIdentity(commonName: "alice.example.test")
        let bob = try OpenSSLIdentity(commonName: "bob.example.test")
        try withTemporaryKeychain { _ in
            #expect(Sec.add([kSecValueRef as String: alice.certificate]) == errSecSuccess)
            #expect(Sec.add([kSecValueRef as String: bob.privateKey]) == errSecSuccess)
            #expect(Sec.copy(identityQuery([kSecReturnRef as String: true])).0 == errSecItemNotFound)
        }
    }

    @Test func addingAnIdentityRefStoresBothPartsAndDuplicatesOnlyWhenBothExist() throws {
        let made = try OpenSSLIdentity(commonName: "add.example.test")
        let identity = try withTemporaryKeychain { _ in
            made.storeParts()
            return try #require(Sec.copy(identityQuery([kSecReturnRef as String: true])).1 as? SecIdentity)
        }
        try withTemporaryKeychain { _ in
            let (status, result) = Sec.addReturning([
                kSecValueRef as String: identity, kSecAttrLabel as String: "imported",
                kSecReturnPersistentRef as String: true,
            ])
            #expect(status == errSecSuccess)
            #expect((result as? Data)?.prefix(4) == Data("idnt".utf8))
            #expect(Sec.count([kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "imported"]) == 1)
            #expect(Sec.count([kSecClass as String: kSecClassKey, kSecAttrLabel as String: "imported"]) == 1)
            #expect(Sec.add([kSecValueRef as String: identity]) == errSecDuplicateItem)
            // With the certificate gone, adding again succeeds (the key is tolerated as existing).
            #expect(Sec.delete([kSecValueRef as String: made.certificate]) == errSecSuccess)
            #expect(
                Sec.add([kSecClass as String: kSecClassIdentity, kSecValueRef as String: identity]) == errSecSuccess
            )
            #expect(Sec.count(identityQuery()) == 1)
            // A SecIdentity under another class is a client error.
            #expect(Sec.add([kSecClass as String: kSecClassKey, kSecValueRef as String: identity]) == errSecParam)
        }
    }

    @Test func deletingByReferenceKeepsAKeyAnotherCertificateStillUses() throws {
        let made = try OpenSSLIdentity(commonName: "delete.example.test")
        try withTemporaryKeychain { _ in
            made.storeParts()
            let identity = try #require(Sec.copy(identityQuery([kSecReturnRef as String: true])).1 as? SecIdentity)
            #expect(Sec.delete([kSecValueRef as String: identity]) == errSecSuccess)
            #expect(Sec.count([kSecClass as String: kSecClassCertificate]) == 0)
            #expect(Sec.count([kSecClass as String: kSecClassKey]) == 0)
            #expect(Sec.delete([kSecValueRef as String: identity]) == errSecItemNotFound)

            // The same certificate stored twice (another access group): deleting one identity keeps the key.
            made.storeParts()
            #expect(
                Sec.add([
                    kSecValueRef as String: made.certificate, kSecAttrAccessGroup as String: "com.example.shared",
                ]) == errSecSuccess
            )
            #expect(Sec.count(identityQuery()) == 2)
            let first = try #require(Sec.copy(identityQuery([kSecReturnRef as String: true])).1 as? SecIdentity)
            #expect(
                Sec.delete([kSecValueRef as String: first, kSecAttrAccessGroup as String: "com.example.app"])
                    == errSecSuccess
            )
            #expect(Sec.count([kSecClass as String: kSecClassKey]) == 1)
            #expect(Sec.count(identityQuery()) == 1)
        }
    }

    @Test func deletingTheClassRunsACertificateAndAKeyDelete() throws {
        let made = try OpenSSLIdentity(commonName: "class.example.test")
        try withTemporaryKeychain { _ in
            made.storeParts()
            #expect(Sec.add(Sec.password()) == errSecSuccess)
            #expect(Sec.delete(identityQuery()) == errSecSuccess)
            #expect(Sec.count([kSecClass as String: kSecClassCertificate]) == 0)
            #expect(Sec.count([kSecClass as String: kSecClassKey]) == 0)
            #expect(Sec.count(Sec.password(data: nil)) == 1)  // other classes are untouched
        }
    }

    @Test func updatingAnIdentityChangesCertificateAndKey() throws {
        let made = try OpenSSLIdentity(commonName: "update.example.test")
        try withTemporaryKeychain { _ in
            made.storeParts()
            let identity = try #require(Sec.copy(identityQuery([kSecReturnRef as String: true])).1 as? SecIdentity)
            #expect(
                SecItemUpdate(
                    [kSecValueRef as String: identity] as CFDictionary,
                    [kSecAttrLabel as String: "renamed"] as CFDictionary
                ) == errSecSuccess
            )
            #expect(Sec.count([kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "renamed"]) == 1)
            #expect(Sec.count([kSecClass as String: kSecClassKey, kSecAttrLabel as String: "renamed"]) == 1)
            #expect(Sec.count(identityQuery([kSecAttrLabel as String: "renamed"])) == 1)
        }
    }

    @Test func certificateFieldFunctionsMatchOpenSSL() throws {
        let made = try OpenSSLIdentity(commonName: "fields.example.test")
        let serial = try #require(SecCertificateCopySerialNumberData(made.certificate, nil))
        let hex = Data(referencing: serial).map { String(format: "%02X", $0) }.joined()
        // openssl drops a leading 00 sign byte; the keychain keeps the INTEGER's content octets.
        #expect(hex == made.serialHex || hex == "00" + made.serialHex)
        #expect(SecCertificateCopyKey(made.certificate) == SecKeyCopyPublicKey(made.privateKey))
        let subject = Data(referencing: try #require(SecCertificateCopyNormalizedSubjectSequence(made.certificate)))
        #expect(subject.first == 0x30)
        #expect(subject.range(of: Data("fields.example.test".utf8)) != nil)  // a UTF8String: not normalized
        try withTemporaryKeychain { _ in
            #expect(Sec.add([kSecValueRef as String: made.certificate]) == errSecSuccess)
            let attributes = try #require(Sec.attributes([kSecClass as String: kSecClassCertificate]))
            #expect(attributes["slnr"] as? Data == Data(referencing: serial))
            // The SEQUENCE's contents are what the keychain stores in kSecAttrSubject.
            #expect((attributes["subj"] as? Data).map { subject.suffix($0.count) == $0 } == true)
        }
    }
}
#endif
