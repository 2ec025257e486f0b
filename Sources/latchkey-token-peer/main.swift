import Foundation
import Latchkey
import LatchkeyTokens

// latchkey-token-peer: a second process for the LatchkeyTokens multi-process tests (not a user tool).
//
//   latchkey-token-peer --token-endpoint URL --client-id ID [--client-secret S] --service S --account A
//
// Opens the keychain named by the LATCHKEY_* environment (as any app would), prints "READY", waits for
// one line on standard input (so that several peers start together), calls validAccessToken() once and
// prints "FINGERPRINT <hex>" (a hash of the access token, never the token) or "ERROR <code>".
//
// The line is "go" (the manager reads the real time) or "go <seconds since 1970>" (the manager's clock
// shows that moment and stands still), so a test can put every peer inside the refresh window at
// once instead of waiting for it.

/// The value after `name` on the command line.
func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// FNV-1a, 64 bits: enough to tell two tokens apart in a test without printing either.
func fingerprint(_ text: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01b3
    }
    return String(hash, radix: 16)
}

/// The clock of a peer told the moment to use: it shows that moment and stands still.
struct StillClock: KeychainClock {
    let moment: Date

    func now() -> Date { moment }
}

func output(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func runPeer() async -> Int32 {
    guard let endpointText = argument("--token-endpoint"), let tokenEndpoint = URL(string: endpointText),
        let clientID = argument("--client-id"), let service = argument("--service"), let account = argument("--account")
    else {
        output("ERROR usage")
        return 64
    }
    var configuration = TokenManager.Configuration(
        endpoints: OAuthEndpoints(tokenEndpoint: tokenEndpoint),
        client: OAuthClient(id: clientID, secret: argument("--client-secret")),
        service: service
    )
    configuration.refreshLeeway = .seconds(60)
    let keychain: Keychain
    do {
        keychain = Keychain(service: service).store(try Keychain.defaultStore())
    } catch {
        output("ERROR keychain-open \(error.code)")
        return 1
    }
    output("READY")
    let words = (readLine() ?? "").split(separator: " ")
    if words.count == 2, let seconds = TimeInterval(words[1]) {
        configuration.clock = StillClock(moment: Date(timeIntervalSince1970: seconds))
    }
    let manager = TokenManager(configuration: configuration, account: account, keychain: keychain)
    do {
        let token = try await manager.validAccessToken()
        output("FINGERPRINT \(fingerprint(token))")
        return 0
    } catch {
        output("ERROR \(error.code)")
        return 1
    }
}

exit(await runPeer())
