#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeyLocalAuthentication
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Strings collected from a `@Sendable` closure.
final class LockedList: @unchecked Sendable {
    // SAFETY: `storage` is only touched under `lock`.
    private let lock = NSLock()
    private var storage: [String] = []
    var items: [String] { lock.withLock { storage } }
    func append(_ item: String) { lock.withLock { storage.append(item) } }
}

/// A subclass, as apps write for dependency injection: `LAContext` must be open.
final class TestContext: LAContext, @unchecked Sendable {}

struct LocalAuthenticationTests {
    @Test func replyRunsBeforeReturn() {
        LAAuthentication.withAuthenticator(LAScriptedAuthenticator(outcomes: [nil])) {
            let context = LAContext()
            nonisolated(unsafe) var replied: Bool?
            context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Test") { success, error in
                replied = success
                #expect(error == nil)
            }
            #expect(replied == true)
        }
    }

    @Test func failureRepliesWithLAError() {
        LAAuthentication.withAuthenticator(LAScriptedAuthenticator(outcomes: [.userCancel])) {
            let context = TestContext()
            nonisolated(unsafe) var code: LAError.Code?
            context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Test") { success, error in
                #expect(!success)
                code = (error as? LAError)?.code
            }
            #expect(code == .userCancel)
        }
    }

    @Test func asyncEvaluateThrowsLAError() async {
        await LAAuthentication.withAuthenticator(LAScriptedAuthenticator(outcomes: [.authenticationFailed])) {
            do {
                _ = try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Test")
                Issue.record("expected a failure")
            } catch LAError.authenticationFailed {
                // expected
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func canEvaluatePolicyReportsAvailability() {
        LAAuthentication.withAuthenticator(LAScriptedAuthenticator(unavailable: .biometryNotAvailable)) {
            var error: NSError?
            #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
            #expect(error?.code == LAError.Code.biometryNotAvailable.rawValue)
            #expect(error?.domain == LAErrorDomain)
        }
        LAAuthentication.withAuthenticator(LAScriptedAuthenticator()) {
            var error: NSError?
            let context = LAContext()
            #expect(context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
            #expect(error == nil)
            context.invalidate()
            #expect(!context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
            #expect(error?.code == LAError.Code.invalidContext.rawValue)
        }
    }

    @Test func interactionNotAllowedFailsWithoutAsking() {
        let authenticator = LAScriptedAuthenticator()
        LAAuthentication.withAuthenticator(authenticator) {
            let context = LAContext()
            context.interactionNotAllowed = true
            nonisolated(unsafe) var code: LAError.Code?
            context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Test") { _, error in
                code = (error as? LAError)?.code
            }
            #expect(code == .notInteractive)
            #expect(authenticator.callCount == 0)
        }
    }

    @Test func propertiesRoundTripAndReuseDurationIsCapped() {
        let context = LAContext()
        context.localizedReason = "Because"
        context.localizedCancelTitle = "No"
        context.touchIDAuthenticationAllowableReuseDuration = 10_000
        #expect(context.localizedReason == "Because")
        #expect(context.localizedCancelTitle == "No")
        #expect(
            context.touchIDAuthenticationAllowableReuseDuration == LATouchIDAuthenticationMaximumAllowableReuseDuration
        )
        #expect(context.biometryType == .none)
    }

    @Test func terminalAuthenticatorWithoutATerminalIsNotInteractive() {
        let terminal = LATerminalAuthenticator(terminalPath: "/nonexistent/tty")
        #expect(terminal.availability(of: .deviceOwnerAuthentication) == nil)
        #expect(terminal.availability(of: .deviceOwnerAuthenticationWithBiometrics) == .biometryNotAvailable)
        #expect(throws: LAError(.notInteractive)) {
            try terminal.authenticate(
                LAAuthenticationRequest(policy: .deviceOwnerAuthentication, localizedReason: "x") { _ in true }
            )
        }
    }

    /// Runs the terminal authenticator on a pseudo-terminal whose input is `typed`.
    private func terminalOutcome(typed: String) throws -> (LAError.Code?, [String]) {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard master >= 0 else { return (.notInteractive, []) }  // no pseudo-terminals here
        defer { close(master) }
        // TIOCSPTLCK (unlock the slave) and TIOCGPTN (its number): Linux's generic ioctl encoding.
        var unlock: Int32 = 0
        var number: UInt32 = 0
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0)
        try #require(ioctl(master, 0x8004_5430, &number) == 0)
        let slave = "/dev/pts/\(number)"
        _ = Array(typed.utf8).withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        let checked = LockedList()
        let request = LAAuthenticationRequest(policy: .deviceOwnerAuthentication, localizedReason: "Unlock the test") {
            checked.append($0.utf8String ?? "")
            return $0 == SecretData(string: "open sesame")
        }
        do throws(LAError) {
            try LATerminalAuthenticator(terminalPath: slave).authenticate(request)
            return (nil, checked.items)
        } catch {
            return (error.code, checked.items)
        }
    }

    @Test func terminalAuthenticatorChecksThePassphraseOnTheTerminal() throws {
        let (success, tried) = try terminalOutcome(typed: "wrong\nopen sesame\n")
        if success == .notInteractive { return }  // no pseudo-terminals on this machine
        #expect(success == nil)
        #expect(tried == ["wrong", "open sesame"])
        let (cancel, _) = try terminalOutcome(typed: "\n")
        #expect(cancel == .userCancel)
        let (failure, attempts) = try terminalOutcome(typed: "a\nb\nc\n")
        #expect(failure == .authenticationFailed)
        #expect(attempts.count == 3)
    }

    @Test func laErrorBridgesToNSErrorInLAErrorDomain() {
        let error: any Error = LAError(.userCancel)
        #expect((error as NSError).code == LAError.Code.userCancel.rawValue)
        #expect((error as NSError).domain == LAErrorDomain)
        #expect(LAError.errorDomain == "com.apple.LocalAuthentication")
    }

    @Test func errorCodesHaveApplesValues() {
        #expect(LAError.Code.authenticationFailed.rawValue == -1)
        #expect(LAError.Code.userCancel.rawValue == -2)
        #expect(LAError.Code.userFallback.rawValue == -3)
        #expect(LAError.Code.systemCancel.rawValue == -4)
        #expect(LAError.Code.passcodeNotSet.rawValue == -5)
        #expect(LAError.Code.biometryNotAvailable.rawValue == -6)
        #expect(LAError.Code.appCancel.rawValue == -9)
        #expect(LAError.Code.invalidContext.rawValue == -10)
        #expect(LAError.Code.notInteractive.rawValue == -1004)
        #expect(LAPolicy.deviceOwnerAuthenticationWithBiometrics.rawValue == 1)
        #expect(LAPolicy.deviceOwnerAuthentication.rawValue == 2)
    }
}
#endif
