/// When an item can be read, as Apple's `kSecAttrAccessible*` values (raw value = the `pdmn` code).
public enum Accessibility: String, Sendable, Hashable, CaseIterable, Codable {
    /// `kSecAttrAccessibleWhenUnlocked`: only while the keychain is unlocked.
    case whenUnlocked = "ak"
    /// `kSecAttrAccessibleAfterFirstUnlock`: once unlocked in this process, even after locking again.
    case afterFirstUnlock = "ck"
    /// `kSecAttrAccessibleAlways` (deprecated by Apple): always, protected by the device secret only.
    case always = "dk"
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`.
    case whenUnlockedThisDeviceOnly = "aku"
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`.
    case afterFirstUnlockThisDeviceOnly = "cku"
    /// `kSecAttrAccessibleAlwaysThisDeviceOnly` (deprecated by Apple).
    case alwaysThisDeviceOnly = "dku"
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`: unlocked, and only in keychains that have a passphrase.
    case whenPasscodeSetThisDeviceOnly = "akpu"

    /// Whether the class is bound to this machine's device secret (never leaves the machine).
    public var isThisDeviceOnly: Bool {
        switch self {
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .alwaysThisDeviceOnly,
            .whenPasscodeSetThisDeviceOnly:
            true
        case .whenUnlocked, .afterFirstUnlock, .always: false
        }
    }

    /// The lock state the class needs.
    var requirement: Requirement {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: .unlocked
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: .firstUnlock
        case .always, .alwaysThisDeviceOnly: .none
        }
    }

    /// What a class key needs before it can be used.
    enum Requirement {
        case unlocked, firstUnlock, none
    }
}
