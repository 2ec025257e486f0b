import Foundation
import Latchkey
import LatchkeyTesting
import Testing

struct KeychainInternetPasswordTests {
    static let site = InternetPassword(
        server: "api.example.com",
        account: "alice",
        protocol: .https,
        port: 8443,
        path: "/v1",
        authenticationType: .httpBasic,
        securityDomain: "realm"
    )

    @Test func fullySpecifiedPasswordRoundTrips() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.setPassword("s3cret", for: Self.site)
        #expect(try keychain.password(for: Self.site) == "s3cret")
        #expect(try keychain.passwordSecret(for: Self.site) == SecretData(string: "s3cret"))
        let listed = try keychain.internetPasswords(forServer: "api.example.com")
        #expect(listed.map(\.internetPassword) == [Self.site])
        #expect(listed.first?.accessibility == .afterFirstUnlock)
    }

    @Test func unspecifiedFieldsMatchAnything() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.setPassword("s3cret", for: Self.site)
        #expect(try keychain.password(for: InternetPassword(server: "api.example.com", account: "alice")) == "s3cret")
        #expect(try keychain.password(for: InternetPassword(server: "api.example.com", account: "bob")) == nil)
        var otherPort = Self.site
        otherPort.port = 443
        #expect(try keychain.password(for: otherPort) == nil)
    }

    @Test func primaryKeyFieldsMakeDistinctItems() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        var http = Self.site
        http.protocol = .http
        try keychain.setPassword("tls", for: Self.site)
        try keychain.setPassword("plain", for: http)
        #expect(try keychain.password(for: Self.site) == "tls")
        #expect(try keychain.password(for: http) == "plain")
        #expect(try keychain.internetPasswords().count == 2)
    }

    @Test func setPasswordIsAnUpsert() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.setPassword("one", for: Self.site)
        try keychain.accessibility(.whenUnlocked).label("API").setPassword("two", for: Self.site)
        let listed = try keychain.internetPasswords()
        #expect(listed.count == 1)
        #expect(listed.first?.accessibility == .whenUnlocked)
        #expect(listed.first?.label == "API")
        #expect(try keychain.password(for: Self.site) == "two")
    }

    @Test func removeAndListingByServer() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.setPassword("a", for: InternetPassword(server: "one.example", account: "alice"))
        try keychain.setPassword("b", for: InternetPassword(server: "two.example", account: "alice"))
        #expect(try keychain.internetPasswords(forServer: "one.example").count == 1)
        #expect(try keychain.removePassword(for: InternetPassword(server: "one.example", account: "alice")))
        #expect(try !keychain.removePassword(for: InternetPassword(server: "one.example", account: "alice")))
        #expect(try keychain.internetPasswords().map(\.internetPassword.server) == ["two.example"])
    }

    @Test func storedWithAppleAttributesReadableByTheCore() throws {
        let test = try TestKeychain.inMemory()
        try test.keychain().setPassword("pw", for: Self.site)
        let item = try test.store.findOne(
            ItemQuery(
                .internetPassword,
                attributes: [.server: .string("api.example.com"), .protocol: .string("htps"), .port: .number(8443)]
            ),
            withData: true
        )
        #expect(item.data == SecretData(string: "pw"))
        #expect(item.attributes[.authenticationType] == .string("http"))
        #expect(item.attributes[.securityDomain] == .string("realm"))
        #expect(item.attributes[.path] == .string("/v1"))
    }

    @Test func asyncVariants() async throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try await keychain.setPassword("pw", for: Self.site)
        #expect(try await keychain.password(for: Self.site) == "pw")
        #expect(try await keychain.internetPasswords().count == 1)
        #expect(try await keychain.removePassword(for: Self.site))
    }

    @Test func descriptionHidesValues() {
        #expect(!"\(Self.site)".contains("alice"))
        #expect(!"\(Self.site)".contains("api.example.com"))
    }
}
