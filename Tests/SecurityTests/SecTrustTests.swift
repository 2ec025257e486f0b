#if !canImport(Darwin)
import Dispatch
import Foundation
import LatchkeySecurity
import Testing

/// A trust object for `certificates` (leaf first) under `policies`, anchored by `anchors` when given.
private func makeTrust(
    _ certificates: [SecCertificate],
    policies: [SecPolicy] = [SecPolicyCreateBasicX509()],
    anchors: [SecCertificate]? = nil
) throws -> SecTrust {
    var trust: SecTrust?
    #expect(SecTrustCreateWithCertificates(certificates as NSArray, policies as NSArray, &trust) == errSecSuccess)
    let made = try #require(trust)
    if let anchors { #expect(SecTrustSetAnchorCertificates(made, anchors as NSArray) == errSecSuccess) }
    return made
}

/// `SecTrustEvaluateWithError`'s answer and error.
private func evaluate(_ trust: SecTrust) -> (trusted: Bool, error: CFError?) {
    var error: CFError?
    let trusted = SecTrustEvaluateWithError(trust, &error)
    return (trusted, error)
}

/// The DER of each certificate of the built chain.
private func chainDER(_ trust: SecTrust) throws -> [Data] {
    let chain = try #require(SecTrustCopyCertificateChain(trust) as? [SecCertificate])
    return chain.map { SecCertificateCopyData($0) as Data }
}

/// The public chain (leaf, intermediate) as certificates; fails the test when the system's CA bundle, which
/// holds its root, is missing.
private func publicChain() throws -> [SecCertificate] {
    try TrustPublicChain.requireSystemBundle()
    let der = TrustPEM.der(TrustPublicChain.leafPEM) + TrustPEM.der(TrustPublicChain.intermediatePEM)
    #expect(der.count == 2)
    return try der.map { try #require(SecCertificateCreateWithData(nil, $0 as CFData)) }
}

/// Sets the verify date.
private func setVerifyDate(_ trust: SecTrust, _ date: Date) {
    #expect(SecTrustSetVerifyDate(trust, date as NSDate) == errSecSuccess)
}

struct SecTrustTests {
    @Test func validChainToAnAnchorIsTrustedForItsHost() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let (root, intermediate, leaf) = try factory.chain()
        let trust = try makeTrust(
            [leaf.certificate, intermediate.certificate],
            policies: [SecPolicyCreateSSL(true, "leaf.latchkey.test" as CFString)],
            anchors: [root.certificate]
        )
        let (trusted, error) = evaluate(trust)
        #expect(trusted)
        #expect(error == nil)
    }

    @Test func copyCertificateChainIsLeafIntermediateRootAndCountMatches() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let (root, intermediate, leaf) = try factory.chain()
        // The anchor is found among the anchors, not the evaluated certificates; an unrelated extra certificate
        // in the input is left out of the chain.
        let stray = try factory.root(name: "Stray Root")
        let trust = try makeTrust(
            [leaf.certificate, stray.certificate, intermediate.certificate],
            anchors: [root.certificate]
        )
        #expect(try chainDER(trust) == [leaf.der, intermediate.der, root.der])
        #expect(SecTrustGetCertificateCount(trust) == 3)
        #expect(SecTrustGetCertificateAtIndex(trust, 0) == leaf.certificate)
        #expect(SecTrustGetCertificateAtIndex(trust, 2) == root.certificate)
        #expect(SecTrustGetCertificateAtIndex(trust, 3) == nil)
        #expect(evaluate(trust).trusted)
    }

    @Test func expiredLeafIsCertificateExpiredWithApplesDescription() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let intermediate = try factory.intermediate(signedBy: root)
        let leaf = try factory.leaf(signedBy: intermediate, from: "20200101000000Z", to: "20210101000000Z")
        let trust = try makeTrust([leaf.certificate, intermediate.certificate], anchors: [root.certificate])
        let (trusted, error) = evaluate(trust)
        #expect(!trusted)
        let failure = try #require(error)
        #expect(CFErrorGetDomain(failure) as String? == "NSOSStatusErrorDomain")
        #expect(CFErrorGetCode(failure) == Int(errSecCertificateExpired))
        #expect(CFErrorGetCode(failure) == -67818)
        #expect(failure.localizedDescription == "“leaf.latchkey.test” certificate is expired")
        let underlying = try #require(failure.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain == "NSOSStatusErrorDomain")
        #expect(underlying.code == -67818)
        #expect(
            underlying.localizedDescription
                == "Certificate 0 “leaf.latchkey.test” has errors: Certificate is not temporally valid;"
        )
        // The chain was built all the same.
        #expect(try chainDER(trust) == [leaf.der, intermediate.der, root.der])
    }

    @Test func expiredIntermediateNamesTheIntermediate() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let intermediate = try factory.intermediate(signedBy: root, from: "20200101000000Z", to: "20210101000000Z")
        let leaf = try factory.leaf(signedBy: intermediate)
        let trust = try makeTrust([leaf.certificate, intermediate.certificate], anchors: [root.certificate])
        let failure = try #require(evaluate(trust).error)
        #expect(CFErrorGetCode(failure) == Int(errSecCertificateExpired))
        #expect(failure.localizedDescription == "“Latchkey Test Intermediate” certificate is expired")
    }

    @Test func verifyDateInsideTheValidityWindowPassesAndOutsideFails() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root(from: "20200101000000Z", to: "20700101000000Z")
        let intermediate = try factory.intermediate(signedBy: root, from: "20200101000000Z", to: "20700101000000Z")
        // Valid only in 2060: not yet valid now.
        let leaf = try factory.leaf(signedBy: intermediate, from: "20600101000000Z", to: "20610101000000Z")
        let trust = try makeTrust([leaf.certificate, intermediate.certificate], anchors: [root.certificate])

        // Not yet valid: Apple answers errSecCertificateExpired for it too.
        let now = try #require(evaluate(trust).error)
        #expect(CFErrorGetCode(now) == Int(errSecCertificateExpired))
        #expect(now.localizedDescription == "“leaf.latchkey.test” certificate is expired")

        let inside = Date(timeIntervalSince1970: 2_853_878_400)  // 2060-06-09
        setVerifyDate(trust, inside)
        #expect(SecTrustGetVerifyTime(trust) == inside.timeIntervalSinceReferenceDate)
        #expect(evaluate(trust).trusted)

        setVerifyDate(trust, Date(timeIntervalSince1970: 2_934_835_200))  // 2063-01-01
        let after = try #require(evaluate(trust).error)
        #expect(CFErrorGetCode(after) == Int(errSecCertificateExpired))

        // Back inside: the setter discarded the cached failure.
        setVerifyDate(trust, inside)
        #expect(evaluate(trust).trusted)
    }

    @Test func wrongHostIsHostNameMismatch() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let (root, intermediate, leaf) = try factory.chain()
        let trust = try makeTrust(
            [leaf.certificate, intermediate.certificate],
            policies: [SecPolicyCreateSSL(true, "other.latchkey.test" as CFString)],
            anchors: [root.certificate]
        )
        let failure = try #require(evaluate(trust).error)
        #expect(CFErrorGetDomain(failure) as String? == "NSOSStatusErrorDomain")
        #expect(CFErrorGetCode(failure) == Int(errSecHostNameMismatch))
        #expect(CFErrorGetCode(failure) == -67602)
        #expect(failure.localizedDescription == "“leaf.latchkey.test” certificate name does not match input")

        // The same chain passes the basic policy, and an SSL policy without a host name.
        #expect(SecTrustSetPolicies(trust, SecPolicyCreateBasicX509()) == errSecSuccess)
        #expect(evaluate(trust).trusted)
        #expect(SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, nil)) == errSecSuccess)
        #expect(evaluate(trust).trusted)
    }

    @Test func sslPolicyMatchesWildcardsAndIPAddresses() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let leaf = try factory.leaf(
            signedBy: root,
            subjectAltName: "DNS:*.wild.latchkey.test, IP:127.0.0.1, IP:::1"
        )
        let trust = try makeTrust([leaf.certificate], anchors: [root.certificate])
        for (host, trusted) in [
            ("a.wild.latchkey.test", true), ("A.Wild.Latchkey.Test", true), ("wild.latchkey.test", false),
            ("a.b.wild.latchkey.test", false), ("127.0.0.1", true), ("::1", true), ("127.0.0.2", false),
        ] {
            #expect(SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString)) == errSecSuccess)
            let result = evaluate(trust)
            #expect(result.trusted == trusted, "\(host)")
            if !trusted { #expect(result.error.map(CFErrorGetCode) == Int(errSecHostNameMismatch), "\(host)") }
        }
    }

    @Test func oneTrustObjectEvaluatedFromManyTasksAtOnceAgrees() async throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let leaf = try factory.leaf(signedBy: root)
        let trust = try makeTrust([leaf.certificate], anchors: [root.certificate])
        let late = Date(timeIntervalSince1970: 2_556_057_600)  // 2051-01-01: after the leaf expired
        let results = await withTaskGroup(of: (Bool, Bool).self) { group in
            for index in 0..<32 {
                group.addTask {
                    if index.isMultiple(of: 4) {
                        // Setters race evaluations; each evaluation sees one whole setting.
                        _ = SecTrustSetVerifyDate(trust, (index.isMultiple(of: 8) ? late : Date()) as NSDate)
                    }
                    var error: CFError?
                    let trusted = SecTrustEvaluateWithError(trust, &error)
                    return (trusted, trusted == (error == nil))
                }
            }
            var all: [(Bool, Bool)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 32)
        #expect(results.allSatisfy { $0.1 })
        setVerifyDate(trust, Date())
        #expect(evaluate(trust).trusted)
        setVerifyDate(trust, late)
        #expect(evaluate(trust).error.map(CFErrorGetCode) == Int(errSecCertificateExpired))
    }

    @Test func nameMismatchOutranksExpiryAsApplesOrderSays() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let leaf = try factory.leaf(signedBy: root, from: "20200101000000Z", to: "20210101000000Z")
        let trust = try makeTrust(
            [leaf.certificate],
            policies: [SecPolicyCreateSSL(true, "other.latchkey.test" as CFString)],
            anchors: [root.certificate]
        )
        let failure = try #require(evaluate(trust).error)
        #expect(CFErrorGetCode(failure) == Int(errSecHostNameMismatch))
        let underlying = try #require(failure.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(
            underlying.localizedDescription
                == "Certificate 0 “leaf.latchkey.test” has errors: "
                + "SSL hostname does not match name(s) in certificate, Certificate is not temporally valid;"
        )
    }

    @Test func unknownCriticalExtensionIsNotStandardsCompliant() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let leaf = try factory.leaf(signedBy: root, extraExtensions: ["1.3.6.1.4.1.55555.1 = critical, ASN1:NULL"])
        let trust = try makeTrust([leaf.certificate], anchors: [root.certificate])
        let failure = try #require(evaluate(trust).error)
        #expect(CFErrorGetCode(failure) == Int(errSecUnknownCriticalExtensionFlag))
        #expect(failure.localizedDescription == "“leaf.latchkey.test” certificate is not standards compliant")
        let underlying = try #require(failure.userInfo[NSUnderlyingErrorKey] as? NSError)
        // The root is trusted: only the extension is reported.
        #expect(
            underlying.localizedDescription
                == "Certificate 0 “leaf.latchkey.test” has errors: Found unknown critical extensions;"
        )
        #expect(try chainDER(trust) == [leaf.der, root.der])
    }

    @Test func nonCAIssuerIsNoBasicConstraintsCAForThatCertificate() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let notCA = try factory.leaf(signedBy: root, dnsName: "issuer.latchkey.test")
        let leaf = try factory.leaf(signedBy: notCA)
        let trust = try makeTrust([leaf.certificate, notCA.certificate], anchors: [root.certificate])
        let failure = try #require(evaluate(trust).error)
        #expect(CFErrorGetCode(failure) == Int(errSecNoBasicConstraintsCA))
        #expect(CFErrorGetCode(failure) == -67605)
        #expect(failure.localizedDescription == "“issuer.latchkey.test” certificate is not standards compliant")
        #expect(try chainDER(trust) == [leaf.der, notCA.der, root.der])
    }

    @Test func unknownRootIsNotTrustedAndNamesTheRoot() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let (root, intermediate, leaf) = try factory.chain()
        // The whole chain, root included, but the root anchored nowhere: only the system's roots are trusted.
        let trust = try makeTrust([leaf.certificate, intermediate.certificate, root.certificate])
        let failure = try #require(evaluate(trust).error)
        #expect(CFErrorGetDomain(failure) as String? == "NSOSStatusErrorDomain")
        #expect(CFErrorGetCode(failure) == Int(errSecNotTrusted))
        #expect(CFErrorGetCode(failure) == -67843)
        #expect(failure.localizedDescription == "“Latchkey Test Root” certificate is not trusted")
        #expect(try chainDER(trust) == [leaf.der, intermediate.der, root.der])

        // Anchored by another root: still not trusted.
        let other = try factory.root(name: "Other Root")
        #expect(SecTrustSetAnchorCertificates(trust, [other.certificate] as NSArray) == errSecSuccess)
        #expect(evaluate(trust).error.map(CFErrorGetCode) == Int(errSecNotTrusted))
    }

    @Test func missingIntermediateIsCreateChainFailed() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let (root, _, leaf) = try factory.chain()
        let trust = try makeTrust([leaf.certificate], anchors: [root.certificate])
        let failure = try #require(evaluate(trust).error)
        #expect(CFErrorGetCode(failure) == Int(errSecCreateChainFailed))
        #expect(CFErrorGetCode(failure) == -25318)
        #expect(failure.localizedDescription == "“leaf.latchkey.test” certificate is not trusted")
        let underlying = try #require(failure.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(
            underlying.localizedDescription
                == "Certificate 0 “leaf.latchkey.test” has errors: "
                + "Unable to build chain to root (possible missing intermediate);"
        )
        #expect(try chainDER(trust) == [leaf.der])
        #expect(SecTrustGetCertificateCount(trust) == 1)
    }

    @Test func selfSignedLeafIsTrustedOnlyAsAnAnchor() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let selfSigned = try factory.root(name: "self.latchkey.test")
        let trust = try makeTrust([selfSigned.certificate])
        let failure = try #require(evaluate(trust).error)
        #expect(CFErrorGetCode(failure) == Int(errSecNotTrusted))
        #expect(failure.localizedDescription == "“self.latchkey.test” certificate is not trusted")
        #expect(SecTrustSetAnchorCertificates(trust, [selfSigned.certificate] as NSArray) == errSecSuccess)
        #expect(evaluate(trust).trusted)
        #expect(try chainDER(trust) == [selfSigned.der])
    }

    @Test func anchorsAreExclusiveUntilAnchorsOnlyIsTurnedOff() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let ownRoot = try factory.root()
        let trust = try makeTrust(try publicChain(), policies: [SecPolicyCreateSSL(true, "www.apple.com" as CFString)])
        setVerifyDate(trust, TrustPublicChain.dateInsideValidity)

        // System roots (Debian's ca-certificates) trust the public chain.
        #expect(evaluate(trust).trusted)

        // Anchors set: only they are trusted (Apple's default), so DigiCert's root is out of reach.
        #expect(SecTrustSetAnchorCertificates(trust, [ownRoot.certificate] as NSArray) == errSecSuccess)
        let failure = try #require(evaluate(trust).error)
        #expect(CFErrorGetCode(failure) == Int(errSecCreateChainFailed))
        #expect(failure.localizedDescription == "“Apple Public EV Server RSA CA 2 - G1” certificate is not trusted")
        #expect(try chainDER(trust).count == 2)

        // Anchors plus the system's roots.
        #expect(SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess)
        #expect(evaluate(trust).trusted)
        var anchors: CFArray?
        #expect(SecTrustCopyCustomAnchorCertificates(trust, &anchors) == errSecSuccess)
        #expect((anchors as? [SecCertificate]) == [ownRoot.certificate])

        // Anchors only again.
        #expect(SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess)
        #expect(!evaluate(trust).trusted)

        // No anchors: the system's roots again.
        #expect(SecTrustSetAnchorCertificates(trust, nil) == errSecSuccess)
        #expect(evaluate(trust).trusted)
    }

    @Test func ownChainIsNotTrustedBySystemRootsButIsWithItsAnchorAdded() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let leaf = try factory.leaf(signedBy: root)
        let trust = try makeTrust([leaf.certificate])
        #expect(evaluate(trust).error.map(CFErrorGetCode) == Int(errSecCreateChainFailed))
        #expect(SecTrustSetAnchorCertificates(trust, [root.certificate] as NSArray) == errSecSuccess)
        #expect(SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess)
        #expect(evaluate(trust).trusted)
    }

    @Test func realPublicChainIsTrustedThroughTheSystemBundleInsideItsValidity() throws {
        let certificates = try publicChain()
        let trust = try makeTrust(
            certificates,
            policies: [SecPolicyCreateSSL(true, "www.apple.com" as CFString)]
        )
        setVerifyDate(trust, TrustPublicChain.dateInsideValidity)
        let (trusted, error) = evaluate(trust)
        #expect(trusted, "\(String(describing: error))")
        let chain = try #require(SecTrustCopyCertificateChain(trust) as? [SecCertificate])
        #expect(chain.count == 3)
        #expect(chain.prefix(2) == certificates.prefix(2))
        #expect(chain.last.flatMap { SecCertificateCopySubjectSummary($0) } as String? == TrustPublicChain.rootName)

        // Another of the leaf's names passes; a name it lacks does not.
        #expect(SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, "images.apple.com" as CFString)) == errSecSuccess)
        #expect(evaluate(trust).trusted)
        #expect(SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, "www.example.com" as CFString)) == errSecSuccess)
        let mismatch = try #require(evaluate(trust).error)
        #expect(CFErrorGetCode(mismatch) == Int(errSecHostNameMismatch))
        #expect(mismatch.localizedDescription == "“www.apple.com” certificate name does not match input")

        // After the leaf expired.
        #expect(SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, "www.apple.com" as CFString)) == errSecSuccess)
        setVerifyDate(trust, TrustPublicChain.dateAfterExpiry)
        let expired = try #require(evaluate(trust).error)
        #expect(CFErrorGetCode(expired) == Int(errSecCertificateExpired))
        #expect(expired.localizedDescription == "“www.apple.com” certificate is expired")
    }

    @Test func deprecatedEvaluateAnswersUnspecifiedOrRecoverableFailure() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let leaf = try factory.leaf(signedBy: root)
        let trust = try makeTrust(
            [leaf.certificate],
            policies: [SecPolicyCreateSSL(true, "leaf.latchkey.test" as CFString)],
            anchors: [root.certificate]
        )
        var result = SecTrustResultType.invalid
        #expect(SecTrustEvaluate(trust, &result) == errSecSuccess)
        #expect(result == .unspecified)
        #expect(result.rawValue == 4)
        #expect(
            SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, "other.latchkey.test" as CFString)) == errSecSuccess
        )
        #expect(SecTrustGetTrustResult(trust, &result) == errSecSuccess)
        #expect(result == .recoverableTrustFailure)
        #expect(result.rawValue == 5)
        #expect(SecTrustEvaluate(trust, &result) == errSecSuccess)
        #expect(result == .recoverableTrustFailure)
    }

    @Test func copyKeyIsTheLeafsPublicKey() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let leaf = try factory.leaf(signedBy: root)
        let trust = try makeTrust([leaf.certificate], anchors: [root.certificate])
        let key = try #require(SecTrustCopyKey(trust))
        let (external, error) = capturingCFError { SecKeyCopyExternalRepresentation(key, $0) }
        #expect(error == nil)
        #expect(external.map { $0 as Data } == (try factory.publicPoint(of: leaf)))
        #expect(SecTrustCopyPublicKey(trust) == key)
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPublic as String)
    }

    @Test func createRefusesWhatIsNotACertificateOrAPolicy() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        var trust: SecTrust?
        #expect(SecTrustCreateWithCertificates([] as NSArray, nil, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates(["text"] as NSArray, nil, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates("text" as NSString, nil, &trust) == errSecParam)
        #expect(
            SecTrustCreateWithCertificates(root.certificate, [] as NSArray, &trust) == errSecParam
        )
        #expect(
            SecTrustCreateWithCertificates(root.certificate, [root.certificate] as NSArray, &trust) == errSecParam
        )
        #expect(trust == nil)

        // One certificate (not an array) and no policy: the basic X.509 policy.
        #expect(SecTrustCreateWithCertificates(root.certificate, nil, &trust) == errSecSuccess)
        let made = try #require(trust)
        var policies: CFArray?
        #expect(SecTrustCopyPolicies(made, &policies) == errSecSuccess)
        #expect((policies as? [SecPolicy]) == [SecPolicyCreateBasicX509()])
        #expect(SecTrustSetPolicies(made, [] as NSArray) == errSecParam)
        #expect(SecTrustSetAnchorCertificates(made, ["text"] as NSArray) == errSecParam)
    }

    @Test func policyPropertiesAreApples() {
        let basic = SecPolicyCopyProperties(SecPolicyCreateBasicX509()) as? [String: Any]
        #expect(basic?[kSecPolicyOid as String] as? String == "1.2.840.113635.100.1.2")
        let ssl = SecPolicyCopyProperties(SecPolicyCreateSSL(true, "example.com" as CFString)) as? [String: Any]
        #expect(ssl?[kSecPolicyOid as String] as? String == "1.2.840.113635.100.1.3")
        #expect(ssl?[kSecPolicyName as String] as? String == "example.com")
        #expect(ssl?[kSecPolicyClient as String] == nil)
        let client = SecPolicyCopyProperties(SecPolicyCreateSSL(false, nil)) as? [String: Any]
        #expect(client?[kSecPolicyClient as String] as? Bool == true)
        #expect(SecPolicyGetTypeID() != SecTrustGetTypeID())
    }

    @Test func networkFetchAllowedIsRecordedOnly() throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let trust = try makeTrust([root.certificate], anchors: [root.certificate])
        var allowed = false
        #expect(SecTrustGetNetworkFetchAllowed(trust, &allowed) == errSecSuccess)
        #expect(allowed)
        #expect(SecTrustSetNetworkFetchAllowed(trust, false) == errSecSuccess)
        #expect(SecTrustGetNetworkFetchAllowed(trust, &allowed) == errSecSuccess)
        #expect(!allowed)
        #expect(evaluate(trust).trusted)
    }

    @Test func asyncEvaluationCallsBackOnTheGivenQueue() async throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let root = try factory.root()
        let leaf = try factory.leaf(signedBy: root, from: "20200101000000Z", to: "20210101000000Z")
        let trust = try makeTrust([leaf.certificate], anchors: [root.certificate])
        let queue = DispatchQueue(label: "sectrust-tests.callback")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 17)
        let (trusted, code, onQueue) = await withCheckedContinuation { continuation in
            queue.async {
                let status = SecTrustEvaluateAsyncWithError(trust, queue) { _, trusted, error in
                    let onQueue = DispatchQueue.getSpecific(key: key) == 17
                    continuation.resume(returning: (trusted, error.map(CFErrorGetCode), onQueue))
                }
                #expect(status == errSecSuccess)
            }
        }
        #expect(!trusted)
        #expect(code == Int(errSecCertificateExpired))
        #expect(onQueue)
    }

    @Test func synchronousEvaluationsInsideManyTasksAllFinish() async throws {
        let factory = try TrustChainFactory()
        defer { factory.remove() }
        let (root, intermediate, leaf) = try factory.chain()
        let certificates = [leaf.certificate, intermediate.certificate]
        let anchor = root.certificate
        // More synchronous calls at once than the cooperative pool has threads: each runs its evaluation on its
        // own thread, so none waits for a free pool thread.
        let count = ProcessInfo.processInfo.activeProcessorCount * 4
        let trusted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask {
                    var trust: SecTrust?
                    guard SecTrustCreateWithCertificates(certificates as NSArray, nil, &trust) == errSecSuccess,
                        let trust, SecTrustSetAnchorCertificates(trust, [anchor] as NSArray) == errSecSuccess
                    else { return false }
                    return SecTrustEvaluateWithError(trust, nil)
                }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(trusted.count == count)
        #expect(trusted.allSatisfy { $0 })
    }
}
#endif
