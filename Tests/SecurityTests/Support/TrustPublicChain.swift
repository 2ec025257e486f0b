#if !canImport(Darwin)
import Foundation
import Testing

/// A real public TLS chain for the `SecTrust` tests: `www.apple.com`'s leaf and its intermediate, as its server
/// sent them in 2022.
///
/// Source: apple/swift-certificates, `Tests/X509Tests/OCSP Test Resources/www.apple.com.der` and
/// `www.apple.com.intermediate.der` (converted to PEM with `openssl x509 -inform DER`). The root, DigiCert High
/// Assurance EV Root CA (SHA-256 74:31:E5:F4:...:B1:18:CF), is not shipped here: it is in Debian's
/// `ca-certificates` bundle, which is what the tests check. The leaf is valid from 2022-04-19 15:50 to
/// 2023-05-19 15:49:59 UTC, for www.apple.com, www.apple.com.cn and images.apple.com; the tests evaluate it on a
/// verify date inside that window (no network is used).
enum TrustPublicChain {
    /// A date inside the leaf's validity period: 2022-10-01 00:00:00 UTC.
    static let dateInsideValidity = Date(timeIntervalSince1970: 1_664_582_400)
    /// A date after the leaf expired: 2024-01-01 00:00:00 UTC.
    static let dateAfterExpiry = Date(timeIntervalSince1970: 1_704_067_200)
    /// The root's subject summary (its common name).
    static let rootName = "DigiCert High Assurance EV Root CA"

    /// Fails the calling test, naming the Debian package, when the system's CA bundle is missing (the tests that
    /// evaluate through the system's roots need it; they never skip).
    static func requireSystemBundle(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(
            FileManager.default.isReadableFile(atPath: "/etc/ssl/certs/ca-certificates.crt"),
            Comment(
                rawValue: "peer /etc/ssl/certs/ca-certificates.crt missing: install the Debian package "
                    + "ca-certificates (apt-get install -y ca-certificates; .ci/run installs every peer)"
            ),
            sourceLocation: sourceLocation
        )
    }

    /// The leaf, `CN=www.apple.com`, issued by Apple Public EV Server RSA CA 2 - G1.
    static let leafPEM = """
        -----BEGIN CERTIFICATE-----
        MIIIUTCCBzmgAwIBAgIQCxya6sqWO6dnzw4XR5O0UzANBgkqhkiG9w0BAQsFADBR
        MQswCQYDVQQGEwJVUzETMBEGA1UEChMKQXBwbGUgSW5jLjEtMCsGA1UEAxMkQXBw
        bGUgUHVibGljIEVWIFNlcnZlciBSU0EgQ0EgMiAtIEcxMB4XDTIyMDQxOTE1NTAw
        MFoXDTIzMDUxOTE1NDk1OVowge8xHTAbBgNVBA8TFFByaXZhdGUgT3JnYW5pemF0
        aW9uMRMwEQYLKwYBBAGCNzwCAQMTAlVTMRswGQYLKwYBBAGCNzwCAQITCkNhbGlm
        b3JuaWExETAPBgNVBAUTCEMwODA2NTkyMQswCQYDVQQGEwJVUzETMBEGA1UECBMK
        Q2FsaWZvcm5pYTESMBAGA1UEBxMJQ3VwZXJ0aW5vMRMwEQYDVQQKEwpBcHBsZSBJ
        bmMuMSYwJAYDVQQLEx1tYW5hZ2VtZW50OmlkbXMuZ3JvdXAuMTIwODkyMDEWMBQG
        A1UEAxMNd3d3LmFwcGxlLmNvbTCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoC
        ggEBAK01MvC1a1/N6YX4+b/X62eSXqdK0rJD+wZRPWmJl4JQZVgJi+uafl2teFw8
        Tu2OQ17fBDDVQ1UwyvW8+zPPcnCQA/6p/+TbLszE0diZDFx8YwhtA/q4hDOI8Rwi
        KDtZgyi0Gm7sV/yybsd/sW1zRInbMhmgEhuQBqt912aLSopx5+bXsA9xTpfdNUIO
        zkOwXWXu6WD3IDG0rVoA14XD3waErzrJ5z4w2MEQgJz5QUXjObA1SLprmTBPN7wA
        HgB5u9GEVwE9mxzrriewcnpOVcZUgtIVbXymP7tsPRftLWQ/436XkjrFoVfn1YnR
        enAzWMKO8pFzeVYptFO9uozVbH8CAwEAAaOCBIQwggSAMAwGA1UdEwEB/wQCMAAw
        HwYDVR0jBBgwFoAUUFWrQ6GvqUgrWsGih4kE5HoOytowegYIKwYBBQUHAQEEbjBs
        MDIGCCsGAQUFBzAChiZodHRwOi8vY2VydHMuYXBwbGUuY29tL2FwZXZzcnNhMmcx
        LmRlcjA2BggrBgEFBQcwAYYqaHR0cDovL29jc3AuYXBwbGUuY29tL29jc3AwMy1h
        cGV2c3JzYTJnMTAxMDwGA1UdEQQ1MDOCEHd3dy5hcHBsZS5jb20uY26CDXd3dy5h
        cHBsZS5jb22CEGltYWdlcy5hcHBsZS5jb20wggESBgNVHSAEggEJMIIBBTAHBgVn
        gQwBATCB+QYJYIZIAYb9bAIBMIHrMD4GCCsGAQUFBwIBFjJodHRwczovL3d3dy5h
        cHBsZS5jb20vY2VydGlmaWNhdGVhdXRob3JpdHkvcHVibGljLzCBqAYIKwYBBQUH
        AgIwgZsMgZhSZWxpYW5jZSBvbiB0aGlzIGNlcnRpZmljYXRlIGJ5IGFueSBwYXJ0
        eSBhc3N1bWVzIGFjY2VwdGFuY2Ugb2YgdGhlIFJlbHlpbmcgUGFydHkgQWdyZWVt
        ZW50IGZvdW5kIGF0IGh0dHBzOi8vd3d3LmFwcGxlLmNvbS9jZXJ0aWZpY2F0ZWF1
        dGhvcml0eS9wdWJsaWMvLjAdBgNVHSUEFjAUBggrBgEFBQcDAgYIKwYBBQUHAwEw
        NQYDVR0fBC4wLDAqoCigJoYkaHR0cDovL2NybC5hcHBsZS5jb20vYXBldnNyc2Ey
        ZzEuY3JsMB0GA1UdDgQWBBRYak9RD/EOFiubhYxEpzYzZfhcVTAOBgNVHQ8BAf8E
        BAMCBaAwggH4BgorBgEEAdZ5AgQCBIIB6ASCAeQB4gB2ALvZ37wfinG1k5Qjl6qS
        e0c4V5UKq1LoGpCWZDaOHtGFAAABgEKNVzMAAAQDAEcwRQIhAOBG34lbqnnGrEu1
        h1idGvy5/5Fj6Jf/auwly5XrC7++AiBiw5eapGODx6ui1C3hE14gvwb8KMOsMps1
        sUeqAGgOIgB2AO5Lvbd1zmC64UJpH6vhnmajD35fsHLYgwDEe4l6qP3LAAABgEKN
        V2AAAAQDAEcwRQIgQB+Avl96nQv3RiRgNIUfGKxL1cTS5ztt2XTnkXv5uJ4CIQCa
        EP+u9nnNjfp2JT3a1kkNG3eGKxUpAESvLFuzB9ECFgB3AHoyjFTYty22IOo44FIe
        6YQWcDIThU070ivBOlejUutSAAABgEKNV4gAAAQDAEgwRgIhANK5cwVNfzNIAeI8
        nOHBfKNyiV7zgibBNhLpzSHRlAxUAiEA/kd3hoVQYjPzvkd5Ehy+UNeYnLvFt8ah
        zofFpWVLOk4AdwCt9776fP8QyIudPZwePhhqtGcpXc+xDCTKhYY069yCigAAAYBC
        jVdgAAAEAwBIMEYCIQCc+n8x/OfqR/k16PrnmjVDZujiwe1FUd9CZ/nh5BMnbAIh
        AMVgATv6OVmfyQudllzbd5YtmX+LR7yiN5owaE5+H6kbMA0GCSqGSIb3DQEBCwUA
        A4IBAQAAHxWsefNp29IRd6adawvBZ5lelhSH3mrX2o6w3qPXtfBhg+Vl1pkQnBaL
        7rUoXKbCZ9RK68jEUnksTCWbAoNLSGLd84uVxqJD8AFG+6tSCd3zdilrBMgfQc1O
        O5Dmfd6/g1as+hD9DR9OwOOVnBkyGYPpwHTTt0koLZxaHBTRjuUvzFpvnNr5263g
        RXN2a60xLhwGp0z29i0/IZytr1I2T/utzir8exLY8q+bfvpyBJhWHrufcfnbZCF4
        rfAw2xtXcIsTcUoOLMdq7VDMDSfeOP9ptncQwY7DELmN2zEkgsZ1QiiEhx1GT1fy
        OIQbnJPbKvMCpGetDKh7bbBiZAaG
        -----END CERTIFICATE-----
        """

    /// The intermediate, `CN=Apple Public EV Server RSA CA 2 - G1`, issued by DigiCert High Assurance EV Root CA.
    static let intermediatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIFMjCCBBqgAwIBAgIQBxd5EQBdImf2iJL2j4tQWDANBgkqhkiG9w0BAQsFADBs
        MQswCQYDVQQGEwJVUzEVMBMGA1UEChMMRGlnaUNlcnQgSW5jMRkwFwYDVQQLExB3
        d3cuZGlnaWNlcnQuY29tMSswKQYDVQQDEyJEaWdpQ2VydCBIaWdoIEFzc3VyYW5j
        ZSBFViBSb290IENBMB4XDTIwMDQyOTEyNTQ1MFoXDTMwMDQxMDIzNTk1OVowUTEL
        MAkGA1UEBhMCVVMxEzARBgNVBAoTCkFwcGxlIEluYy4xLTArBgNVBAMTJEFwcGxl
        IFB1YmxpYyBFViBTZXJ2ZXIgUlNBIENBIDIgLSBHMTCCASIwDQYJKoZIhvcNAQEB
        BQADggEPADCCAQoCggEBAOIA/aXfX7k4cUnrupPYw00z3FwU6nAvwepTO8ueUcBU
        smQGppcx5BeEyngvZ8PSieH0GHHK7RnHbgLChyon2H9EpgYo7NQ1yrcC5THvo3Vr
        lAP6U746ORSDxUbbv4z15kAsyvABUCFi8S7IXkzDIjhOICNrA8fXUpUKbIccI2Jv
        Mz7Rvw5GeG7caa2u+vSI3TmBnwMcjVqlsScqY6tbE/ji7C/XDw7wUpMHyaQMVGPO
        7mJfi0/QbiUPWwnCJPYAqPpvBVjeBh0avUCGaP2ZtZc2Jns1C8h9ebJG+Z3awdgB
        qQPYD2I+fy/aBtnTOkhnBJti8jxh1ThNV65S9SucZecCAwEAAaOCAekwggHlMB0G
        A1UdDgQWBBRQVatDoa+pSCtawaKHiQTkeg7K2jAfBgNVHSMEGDAWgBSxPsNpA/i/
        RwHUmCYaCALvY2QrwzAOBgNVHQ8BAf8EBAMCAYYwHQYDVR0lBBYwFAYIKwYBBQUH
        AwEGCCsGAQUFBwMCMBIGA1UdEwEB/wQIMAYBAf8CAQAwNAYIKwYBBQUHAQEEKDAm
        MCQGCCsGAQUFBzABhhhodHRwOi8vb2NzcC5kaWdpY2VydC5jb20wSwYDVR0fBEQw
        QjBAoD6gPIY6aHR0cDovL2NybDMuZGlnaWNlcnQuY29tL0RpZ2lDZXJ0SGlnaEFz
        c3VyYW5jZUVWUm9vdENBLmNybDCB3AYDVR0gBIHUMIHRMIHFBglghkgBhv1sAgEw
        gbcwKAYIKwYBBQUHAgEWHGh0dHBzOi8vd3d3LmRpZ2ljZXJ0LmNvbS9DUFMwgYoG
        CCsGAQUFBwICMH4MfEFueSB1c2Ugb2YgdGhpcyBDZXJ0aWZpY2F0ZSBjb25zdGl0
        dXRlcyBhY2NlcHRhbmNlIG9mIHRoZSBSZWx5aW5nIFBhcnR5IEFncmVlbWVudCBs
        b2NhdGVkIGF0IGh0dHBzOi8vd3d3LmRpZ2ljZXJ0LmNvbS9ycGEtdWEwBwYFZ4EM
        AQEwDQYJKoZIhvcNAQELBQADggEBAKZebFC2ZVwrTj+u6nDo3O03e0/g/hN+6U5i
        A7X9dBGmQx3C7NkPNAV0mUoaklsceIBIQ/bC7utdgwnSKTnm5HdVipASyLloU7TP
        2jAtDQdAxBavmLnFwcwXBp6n17uLp+uPU4DZgubM96LyUQilUlYERbgu66rCK18j
        RmobDvFT8E71oU13o1Oe/1WUHFbTynRkKW73JDd2rZ21Pim7LEJVY3OcRmtYNHaM
        /lunYx1ZQ+0fw7Hc5J/xR7vlRiuyP+fJ9ucuDYupLg333Di5R7JZIfnX42ecX0Dd
        0wIeuFj0HBjH6c25FUov/Fa5Zjr0VPjmmgN6PnoMArUZXDkQe3M=
        -----END CERTIFICATE-----
        """
}
#endif
