#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing

/// The iOS way to install a client identity: import an `openssl pkcs12 -export` file, add the identity to the
/// keychain, find it again by label and sign with it; openssl verifies the signature.
struct PKCS12KeychainTests {
    @Test(arguments: ["ec -pkeyopt ec_paramgen_curve:prime256v1", "rsa:2048"])
    func importedIdentityIsStoredFoundAndSignsForOpenSSL(_ keySpec: String) throws {
        let directory = try makeTemporaryDirectory("p12keychain")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("[req]\ndistinguished_name = dn\n[dn]\n".utf8).write(to: directory.appendingPathComponent("req.cnf"))
        let script = """
            openssl req -x509 -config req.cnf -newkey \(keySpec) -nodes -keyout key.pem -out cert.pem -days 30 \
              -subj "/O=Example/CN=client.example.test" &&
            openssl pkcs12 -export -inkey key.pem -in cert.pem -name "Client Identity" -passout pass:p12-secret \
              -out client.p12 &&
            openssl x509 -in cert.pem -pubkey -noout > pub.pem
            """
        try #require(try runTool(["sh", "-c", script], in: directory) == 0)
        let file = try Data(contentsOf: directory.appendingPathComponent("client.p12"))

        var items: CFArray?
        let options = [kSecImportExportPassphrase as String: "p12-secret"] as CFDictionary
        #expect(SecPKCS12Import(file as CFData, options, &items) == errSecSuccess)
        let first = try #require((items as? [[String: Any]])?.first)
        let identity = try #require(first[kSecImportItemIdentity as String] as? SecIdentity)
        #expect(first[kSecImportItemLabel as String] as? String == "Client Identity")

        try withTemporaryKeychain { _ in
            #expect(
                Sec.add([kSecValueRef as String: identity, kSecAttrLabel as String: "Client Identity"])
                    == errSecSuccess
            )
            let attributes = try #require(
                Sec.attributes([kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "Client Identity"])
            )
            #expect(attributes["pkhh"] as? Data == attributes["klbl"] as? Data)
            #expect((attributes["pkhh"] as? Data)?.count == 20)
            #expect(attributes["kcls"] as? Int == 1)
            let (status, result) = Sec.copy([
                kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "Client Identity",
                kSecReturnRef as String: true,
            ])
            #expect(status == errSecSuccess)
            let found = try #require(result as? SecIdentity)
            #expect(found == identity)

            var key: SecKey?
            #expect(SecIdentityCopyPrivateKey(found, &key) == errSecSuccess)
            let privateKey = try #require(key)
            let message = Data("signed by the imported identity".utf8)
            let algorithm =
                keySpec.hasPrefix("rsa")
                ? kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256 : kSecKeyAlgorithmECDSASignatureMessageX962SHA256
            let signature = try #require(SecKeyCreateSignature(privateKey, algorithm, message as CFData, nil))
            try message.write(to: directory.appendingPathComponent("message"))
            try Data(referencing: signature).write(to: directory.appendingPathComponent("signature"))
            #expect(
                try runTool(
                    ["openssl", "dgst", "-sha256", "-verify", "pub.pem", "-signature", "signature", "message"],
                    in: directory
                ) == 0
            )
        }
    }
}
#endif
