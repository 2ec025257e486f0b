import CSystemdBus
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The agent's lock on sleep: it listens on the system bus for logind's `PrepareForSleep(true)`
/// (`org.freedesktop.login1.Manager`, sent by `org.freedesktop.login1` from `/org/freedesktop/login1`) and,
/// when `lockOnSleep` is on (`latchkey set-keychain-settings -l`, or `latchkey agent --lock-on-sleep`), locks
/// the keychain for every client, as `latchkey lock` does.
///
/// The bus is sd-bus's (libsystemd.so.0, bound on first use, see CSystemdBus), reached as `sd_bus_open_system`
/// would: `DBUS_SYSTEM_BUS_ADDRESS`, else `unix:path=/run/dbus/system_bus_socket`. Everything happens on a
/// thread of its own, which connects, watches and closes the connection. Without a system bus (a container,
/// no libsystemd) the agent says so in one log line and runs on, without the lock on sleep. Every
/// `PrepareForSleep` received is logged; with the setting off it is ignored.
///
/// The lock is taken when the signal arrives: without a delay inhibitor, logind does not wait for it, so on a
/// fast suspend the lock may happen only when the machine resumes, before the agent serves anything else.
final class SleepLock: @unchecked Sendable {
    // SAFETY: `bus` is only touched on the sleep-lock thread (connected, processed and closed there, sd-bus is
    // not thread-safe); `stopped` is atomic and `wakeDescriptor` is a kernel object written from any thread.

    /// The system bus when `DBUS_SYSTEM_BUS_ADDRESS` is not set (sd-bus's and libdbus's default).
    static let defaultSystemBusAddress = "unix:path=/run/dbus/system_bus_socket"

    /// Whether `PrepareForSleep(true)` locks the keychain; when off, the signal is logged and ignored.
    let lockOnSleep: Bool
    /// The D-Bus address of the system bus.
    let address: String
    private let logger: Logger
    private let stopped = Atomic<Bool>(false)
    /// An eventfd that `stop()` writes, so the thread wakes up and ends.
    private let wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
    private var bus: OpaquePointer?
    private var sleeping: (@Sendable () -> Void)?

    /// Makes the lock on sleep of an agent; nothing happens before `start(sleeping:)`.
    ///
    /// - Parameters:
    ///   - lockOnSleep: Whether sleep locks the keychain.
    ///   - environment: Where `DBUS_SYSTEM_BUS_ADDRESS` is read.
    ///   - logger: The agent's logger.
    init(
        lockOnSleep: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger
    ) {
        self.lockOnSleep = lockOnSleep
        self.address =
            environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
            ?? Self.defaultSystemBusAddress
        self.logger = logger
    }

    deinit {
        if wakeDescriptor >= 0 { close(wakeDescriptor) }
    }

    /// Starts the thread that connects to the system bus and calls `sleeping` at each `PrepareForSleep(true)`
    /// while `lockOnSleep` is on.
    func start(sleeping: @escaping @Sendable () -> Void) {
        self.sleeping = sleeping
        let thread = Thread { [self] in run() }
        thread.name = "latchkey-agent-sleep-lock"
        thread.start()
    }

    /// Stops watching: the thread wakes up, closes its connection and ends.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    private func run() {
        defer {
            if let bus { sd_bus_flush_close_unref(bus) }
            bus = nil
        }
        if stopped.load(ordering: .acquiring) { return }
        if let failure = connect() {
            // Not an error of the agent's: it serves on, only without the lock on sleep.
            logger.log(
                level: lockOnSleep ? .notice : .info,
                "sleep lock: no system bus, the keychain does not lock when the machine sleeps",
                metadata: ["address": "\(address)", "reason": "\(failure)"]
            )
            return
        }
        logger.info(
            "sleep lock: watching for sleep on the system bus",
            metadata: ["address": "\(address)", "lockOnSleep": "\(lockOnSleep)"]
        )
        while !stopped.load(ordering: .acquiring) {
            let processed = sd_bus_process(bus, nil)
            if processed < 0 {
                logger.notice(
                    "sleep lock: the system bus connection ended, the keychain no longer locks on sleep",
                    metadata: ["error": "\(String(cString: strerror(-processed)))"]
                )
                return
            }
            if processed > 0 { continue }
            guard waitForWork() else { return }
        }
    }

    /// Connects to the system bus and adds the match for `PrepareForSleep`; returns why it could not, or `nil`.
    private func connect() -> String? {
        if let failure = latchkey_systemd_load_error() {
            return "libsystemd.so.0 cannot be loaded (Debian: libsystemd0): \(String(cString: failure))"
        }
        var created: OpaquePointer?
        var status = sd_bus_new(&created)
        guard status >= 0, let created else { return "sd_bus_new: \(String(cString: strerror(-status)))" }
        bus = created
        status = address.withCString { sd_bus_set_address(created, $0) }
        guard status >= 0 else { return "the address: \(String(cString: strerror(-status)))" }
        status = sd_bus_set_bus_client(created, 1)
        guard status >= 0 else { return "sd_bus_set_bus_client: \(String(cString: strerror(-status)))" }
        status = sd_bus_start(created)
        guard status >= 0 else { return "connect: \(String(cString: strerror(-status)))" }
        let rule =
            "type='signal',sender='org.freedesktop.login1',path='/org/freedesktop/login1',"
            + "interface='org.freedesktop.login1.Manager',member='PrepareForSleep'"
        let context = Unmanaged.passUnretained(self).toOpaque()
        // Synchronous on a bus client: once it returns, the bus daemon routes the signal here.
        status = rule.withCString { sd_bus_add_match(created, nil, $0, Self.prepareForSleep, context) }
        guard status >= 0 else { return "AddMatch: \(String(cString: strerror(-status)))" }
        return nil
    }

    /// Waits for the bus's descriptor, its next timeout or `stop()`; false when waiting is impossible or the
    /// agent stops.
    private func waitForWork() -> Bool {
        let events = sd_bus_get_events(bus)
        guard events >= 0 else {
            logger.notice(
                "sleep lock: the system bus connection ended, the keychain no longer locks on sleep",
                metadata: ["error": "\(String(cString: strerror(-events)))"]
            )
            return false
        }
        var descriptors = [
            pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: events), revents: 0),
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        var deadline: UInt64 = 0
        var timeout: Int32 = -1
        if sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
            let remaining = deadline > nowMicroseconds ? (deadline - nowMicroseconds + 999) / 1000 : 0
            timeout = Int32(min(remaining, UInt64(Int32.max)))
        }
        let ready = poll(&descriptors, 2, timeout)
        if ready < 0 && errno != EINTR {
            logger.notice("sleep lock: waiting on the system bus failed", metadata: ["error": "\(errno)"])
            return false
        }
        return descriptors[1].revents & Int16(POLLIN) == 0
    }

    /// The sd-bus callback of the match: reads the signal's boolean and hands it to `received(sleeping:)`.
    private static let prepareForSleep: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context else { return 0 }
        let lock = Unmanaged<SleepLock>.fromOpaque(context).takeUnretainedValue()
        var value: Int32 = 0
        let status = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &value)
        guard status >= 0 else {
            lock.logger.notice(
                "sleep lock: a PrepareForSleep without its boolean, ignored",
                metadata: ["error": "\(String(cString: strerror(-status)))"]
            )
            return 0
        }
        lock.received(sleeping: value != 0)
        return 0
    }

    /// Acts on one `PrepareForSleep`: locks before sleep when the setting is on, logs everything else as ignored.
    private func received(sleeping isSleeping: Bool) {
        guard isSleeping else {
            logger.info("sleep lock: PrepareForSleep(false), the machine resumed: ignored")
            return
        }
        guard lockOnSleep, let sleeping else {
            logger.info("sleep lock: PrepareForSleep(true), lock on sleep is off: ignored")
            return
        }
        sleeping()
        logger.info("keychain locked: the machine goes to sleep (lock on sleep)")
    }
}
