import Foundation
import LatchkeyCrypto
import Testing

/// Fixed keys for the known-answer tests, made once with Python `cryptography` 48 (OpenSSL 3) by
/// `rsa.generate_private_key(65537, 2048)` and `ec.generate_private_key(SECP256R1() / SECP384R1() / SECP521R1())`.
/// Test keys only: they protect nothing.
enum TestKeys {
    /// A 2048-bit RSA private key, PKCS#1 `RSAPrivateKey` PEM.
    static let rsaPrivateKeyPEM = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAv67dV5MSqLtDtLlMyCpYolT86FoNPx9HfdBEKIneqqtOgePk
        ljSjqLX+KsVb63R4b0amVEm6h1Cvu0QyhV3VNWXPES4hiZP4/Zw6sYyY5Th6lUmS
        j/xaqlmOa+0BAv/sI5AAxYG6SfBGpMAgqVMuWJ/5LlwQrVaONHfDoSqluUIXkjbS
        3jv/KaJDIPTgKmPHChJAqB/7fcehPPaLmHiPxBRicoZlisJKn99mS0sXsDmwlaoN
        7bd6U/mD07lIN4ZJ6FPFP36YYm1K0FKhmrY27VsQ7/4fCVeJFL1OmA2l4XiOytUX
        mPbwRQos8CjTL9ZDBiTTFrJJR5WJFtRmcByBTwIDAQABAoIBABDuhFTBBAvthryH
        BbZEr1GfijuIANWLkMgXRn4CN64BtcyZcc6m1bIIaWwjxMvWnPDPX8/gN17OjMdQ
        7dmEAVpXJORSm9nIPV1BmJmoXrUYuRNIzW50jxmvEXqNE+LM8nHtvXO00tzHIaZZ
        5kiutVBUyTEEJuD43VTbI2ewGbV0bvfDHoGujoWQpp7HBFbADU5AWytuwgLdQ5+m
        Xpa6W5de8+s23qLRg6mL8q6gHFpN2kEg4DIIcmf835fasMwf05QgdJO2Q7jW3Ya9
        jDzohZ/zfy5ecx9A7XCgUzCLQ3fr5oNoJzWowM7hhdUnE+36A/dGKmWKkBfNfTZZ
        M/+UevkCgYEA3yDaBylCWNQ4PjwO9VzN6EXi1L8yEdclPFy0I3wxSqVVdk49m0eI
        biuvcq/EnmtigP/afdvugvcUQ/UTIH697Zn/fOP7hTfUx9LnfEn8W2+cazR8mren
        0u1wguxvlTce76ngLEdPnvG6TAEWFFUYDsgKKrV5n5GmFpmVdXJBgV0CgYEA2+wS
        +kgCh4FzkBXeIQd/qxoUNNzyzTumTubN9cr09Yhpbcrr4v8S1hVN99PULCCzyKM/
        m0L5uTZHCtwdqGpZjcrP5UsRic8TKrJITMkFGWzNaWAo9o6fL6aJV+dL/SfKgCju
        b4GXdzIK58Il2IAt3d1XTOXYJJY/La/zLJFnBpsCgYBFlyFpCl0/BzFjd6fSrtcp
        kmJkqB0do1RhtygXySw2c8pr04szWuQaOFXIFznjjupyAVpL1sRU5GrVpyIICH+E
        E3uzoAdaTUd36zd3dDvY6L6IUR5rwsv85UEqFEPY7hAf/4ODS9pxYEMSYWRZgxC1
        y34gQ+li8zIx6kTLFI+JoQKBgQDKrIRMzYIvORi0J8L/M3bvy2fl092bUCaTPld+
        9lzLzrxCp6i+GI5WZ2nkQ/6b8ENfWzsqLg4QJzpPgs1+QQxpBQiU6pquIv0p8wV4
        ZiVh6ghf3XPCzWtcsaCPNySrmDkh5RbgAlEBU0gDj8PrAy3B8tMalhOcnC57P1Te
        tN16kwKBgHFR3nquhuzjPWHhheXCqSB4rr99OsPcH8a/LwsW2TPOrYLVbiCdTyHI
        iN10fy5dxLzrcVDMxCY59m7YTa9HRWm98HeLd8uUFt5+Fr+2DL0ML9EQ/5FuzagT
        DsOxzAv21QgoBsxf2i5LOQ/rKyb9u8witT+LGq8mhuHwzoz/b0c6
        -----END RSA PRIVATE KEY-----
        """

    /// The PKCS#1 DER of `rsaPrivateKeyPEM`.
    static let rsaPrivateKeyDER: [UInt8] = {
        let base64 = rsaPrivateKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: base64) else { preconditionFailure("invalid PEM test key") }
        return [UInt8](der)
    }()

    /// The modulus `n` of `rsaPrivateKeyPEM`, big-endian.
    static let rsaModulus = hex(
        """
        bfaedd579312a8bb43b4b94cc82a58a254fce85a0d3f1f477dd0442889deaaab4e81e3e49634a3a8b5fe2ac55beb7478
        6f46a65449ba8750afbb4432855dd53565cf112e218993f8fd9c3ab18c98e5387a9549928ffc5aaa598e6bed0102ffec
        239000c581ba49f046a4c020a9532e589ff92e5c10ad568e3477c3a12aa5b942179236d2de3bff29a24320f4e02a63c7
        0a1240a81ffb7dc7a13cf68b98788fc414627286658ac24a9fdf664b4b17b039b095aa0dedb77a53f983d3b948378649
        e853c53f7e98626d4ad052a19ab636ed5b10effe1f09578914bd4e980da5e1788ecad51798f6f0450a2cf028d32fd643
        0624d316b24947958916d466701c814f
        """
    )

    /// The public exponent `e` = 65537.
    static let rsaExponent: [UInt8] = [0x01, 0x00, 0x01]

    /// X9.63 private keys `04 ‖ X ‖ Y ‖ K`: the recipient and the ephemeral key of each curve.
    static let p256Recipient = hex(
        """
        04fc0131969b182f08665973b76d300e60ff33ebb32f674074a7c1b1b5578d8116a41d975e816e5cd9ff7e7a0215ab62
        092284f4467dee7d64fa17d2b6af3bc6c57c64c1d399ef0d69855123bc449707796e28ee7bd455f1c37bb67384f240cc
        71
        """
    )
    static let p256Ephemeral = hex(
        """
        04471739fc6d107109165783cea9235ff92cc15fae666560d20ff394625977423460dd5da9e4dcc3c5cabf4dd2d70f07
        bdc07da6b3f48108ecff479ee82f0eb79c69c76f20c37fd3bcabaa92cbccba1c2093e3d242ba7629fc58814b2d10e6bc
        fb
        """
    )
    static let p384Recipient = hex(
        """
        04d9a2d224be04942848137161b92e8f7549f7574244638301b56b4a7f21dcfafec3378977e16f9fdf2120ad393cf6d7
        da06abc44bfcee827259de1d83f50d108de55983e44471a747466dbcad2d6dab36b47dc781313f89d4589aa7764603d1
        301dd2baa510c1c1208e53aaceeafc87a51923be05129f361eaf2ebf7d7e95d9f0c9443e7908b8d33751d80347f69677
        46
        """
    )
    static let p384Ephemeral = hex(
        """
        04b215b0b6b7a592ef3952baa20a0e177353962f768775f5f798e6b7ec107e4f0c03a23a1d0193be997e6119fe5d344c
        8661796edfcd9fdd9247f7d80cbe78c6fa2e867b3a7d1ab14040a72ac7162093b71c198c6466a8b0adbbab4740ef3e90
        5f148846175aab878134f4e9e448724cc4279cba35ba2d4e4ac3003760d81c0a12749d8de9516074f68a9cd3356fd271
        5f
        """
    )
    static let p521Recipient = hex(
        """
        0401bcbf7061cd7ffd15f8d804a2e3a98ab77a8cc806a28169afe272ddb610871bdefda31f8678b518cd8bf1810d1b0a
        0b9d55c01e2370004fb700abba51730cf9e9ce01c41a19cad3dd4419b040e99bb0b5e7ebae61e23df0fdd68a45c3032f
        52a08e32618170e7e4a8b5ecf92cb979d17eb1533e2f45fe6131b33d4de4e1529f113a4d2f0101291d18db4e791c014c
        2ae68527ea2802ea4d03dc75030539316766e70f74bd3da0282c3d6635a3a79b54b45b37c4b6625c248c993a2fcf827f
        9d13e9a51a7fe5
        """
    )
    static let p521Ephemeral = hex(
        """
        0401ce98604926b6f247f8064102bc620fa7c24c31ad2f493f916a939e923d742f9c155917a986a33a244970bcb8cc8e
        1679c8d23dae176d597c8a12b34d2c14860ebb00553cc6dfad1f150f6def460ea67eabb6a2b3b76431c4eb17b7ef4866
        235ebe517533304d48a1294000423bdaee8c61ba877ea26a6c9682dc7c0efbd335040d8908010bc5d8cd89304be996c6
        67aeb1d2facb2bd10a81f1a6e5c7dc33d31210fea2371674f9480f51a393865c778e05a16a5b487ab82df3840e5c9ca9
        80297c0137a2bd
        """
    )

    /// The ECDH shared secrets of each recipient with the ephemeral key of its curve
    /// (`ephemeral.exchange(ec.ECDH(), recipient.public_key())`).
    static let p256SharedSecret = hex("3764f8056c11fb59766ffa7348f06503f0ca49778bea643541317c6154e52950")
    static let p384SharedSecret = hex(
        """
        0c622dd0443ae8613b852744322b82b4b553f7be6a5536d61aa79aa8dda2f47ed96706087ec721d9a80aaba02f3eef24
        """
    )
    static let p521SharedSecret = hex(
        """
        00c556bf884405f3914bd9cf996005bb55820b9a2936d0fd8a5c08161d9436394dbf55f8f90f09f37e246d5b709b85af
        90948ac594c81d68995a920ae40658ffcf41
        """
    )
}

/// Bytes from hexadecimal digits; whitespace and line breaks are ignored (test vectors only; traps on malformed
/// input).
func hex(_ string: String) -> [UInt8] {
    [UInt8](Data(hex: string.filter { !$0.isWhitespace }))
}

/// Records an issue unless `body` throws `CryptoError.invalidParameters`.
func expectInvalidParameters(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> some Any
) {
    do {
        _ = try body()
        Issue.record("expected CryptoError.invalidParameters, nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        guard case .invalidParameters = error as? LatchkeyCrypto.CryptoError else {
            Issue.record("expected CryptoError.invalidParameters, got \(error)", sourceLocation: sourceLocation)
            return
        }
    }
}
