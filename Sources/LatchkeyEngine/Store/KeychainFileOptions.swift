import Foundation
import LatchkeyCrypto
import Logging

/// How a keychain file is opened: the caller's access groups, read-only or not, the KDF cost of new
/// passphrase slots, the device secret, the busy timeout, logging, and the clock and randomness (injected by
/// tests). `KeychainStore.Options` names the same type.
public struct KeychainFileOptions: Sendable {
    /// The caller's ordered access groups; the first is the default for new items.
    public var accessGroups: [String]
    /// Open without write access.
    public var readOnly: Bool
    /// KDF cost for passphrase slots created through this handle.
    public var kdfCost: KDFCost
    /// The device secret file; `nil` for `KeychainLocation.defaultDeviceSecretPath()`.
    public var deviceSecretPath: String?
    /// How long to wait for another process's write lock, in seconds.
    public var busyTimeout: TimeInterval
    /// Where diagnostics go (never secrets or attribute values).
    public var logger: Logger
    /// Where item dates come from (`SystemClock` unless a test injects one).
    public var clock: any KeychainClock
    /// Where persistent-reference identifiers come from (`SystemRandom` unless a test injects one).
    public var random: any KeychainRandom

    /// Options with the process's access groups, standard KDF cost, a 30-second busy timeout, the
    /// system clock and the system random generator.
    public init(
        accessGroups: [String] = AccessGroups.current(),
        readOnly: Bool = false,
        kdfCost: KDFCost = .standard,
        deviceSecretPath: String? = nil,
        busyTimeout: TimeInterval = 30,
        logger: Logger = Logger(label: "latchkey", factory: { _ in SwiftLogNoOpLogHandler() }),
        clock: any KeychainClock = SystemClock(),
        random: any KeychainRandom = SystemRandom()
    ) {
        self.accessGroups = accessGroups
        self.readOnly = readOnly
        self.kdfCost = kdfCost
        self.deviceSecretPath = deviceSecretPath
        self.busyTimeout = busyTimeout
        self.logger = logger
        self.clock = clock
        self.random = random
    }
}
