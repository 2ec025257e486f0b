import CSystemdBus
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A method call received on the bus, its arguments read.
struct BusCall {
    /// The object path called.
    var path: String
    /// The interface named by the call ("" when none).
    var interface: String
    /// The method.
    var member: String
    /// The caller's unique bus name.
    var sender: String
    /// The arguments, in order.
    var arguments: [BusValue]
}

/// What answers the method calls of the bus's objects (the Secret Service), on the bus thread.
protocol BusHandler: AnyObject {
    /// Answers one call with its return values, or throws the error to reply with.
    func handle(_ call: BusCall, on bus: Bus) throws(SecretServiceError) -> [BusValue]
}

/// One connection to a D-Bus bus through systemd's sd-bus, owning a well-known name and answering every
/// method call under one object-path prefix with a `BusHandler`.
///
/// A single fallback handler (`sd_bus_add_fallback`) receives every call under the prefix, so the Swift
/// side decides per path, interface and member, introspection and properties included; sd-bus only
/// frames, reads and writes messages. After `run()` starts, everything happens on the bus thread.
final class Bus: @unchecked Sendable {
    // SAFETY: `bus` and `handler` are used on the thread that connects until `run()` starts the bus thread,
    // then only on the bus thread (callbacks and signals are sent from inside the handler); sd-bus is not
    // thread-safe and is never touched from two threads at once.

    private var bus: OpaquePointer?
    private weak var handler: (any BusHandler)?
    private var disconnected: ((String) -> Void)?
    private var lost: (() -> Void)?
    private var woken: (() -> Void)?
    /// Work handed to the bus thread by other threads (`perform`), run after the next wake.
    private let queued = Mutex<[() -> Void]>([])
    /// An eventfd that `wake()` writes, so another thread can make the bus thread run `woken`.
    private let wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
    private let logger: Logger

    /// Connects to the bus at `address` (a D-Bus address such as `unix:path=/run/user/1000/bus`).
    ///
    /// - Throws: `SecretServiceError.failed` naming the address when the bus cannot be reached.
    init(address: String, logger: Logger) throws(SecretServiceError) {
        self.logger = logger
        if let failure = latchkey_systemd_load_error() {
            throw .failed(
                "The Secret Service needs libsystemd.so.0 (Debian: libsystemd0): \(String(cString: failure))."
            )
        }
        var created: OpaquePointer?
        try Self.check(sd_bus_new(&created), "create a bus connection")
        bus = created
        try Self.check(address.withCString { sd_bus_set_address(created, $0) }, "use the bus address \(address)")
        try Self.check(sd_bus_set_bus_client(created, 1), "act as a bus client")
        try Self.check(sd_bus_start(created), "connect to the session bus at \(address)")
    }

    deinit {
        if let bus { sd_bus_flush_close_unref(bus) }
        if wakeDescriptor >= 0 { close(wakeDescriptor) }
    }

    /// Runs `body` on the bus thread after each `wake()`.
    func onWake(_ body: @escaping () -> Void) {
        woken = body
    }

    /// Makes the bus thread run the `onWake` handler soon; callable from any thread.
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Runs `work` on the bus thread soon (for example a signal to emit once a prompt is answered on another
    /// thread); callable from any thread.
    func perform(_ work: @escaping @Sendable () -> Void) {
        queued.withLock { $0.append(work) }
        wake()
    }

    /// The process id and user id of the connection `name` (a unique name such as `:1.42`), as the bus
    /// daemon saw them when it connected (`org.freedesktop.DBus.GetConnectionCredentials`), or `nil` when
    /// the daemon does not say (the connection is gone). Called on the bus thread.
    func credentials(of name: String) -> (process: Int32, user: UInt32)? {
        var call: OpaquePointer?
        let created = sd_bus_message_new_method_call(
            bus,
            &call,
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "GetConnectionCredentials"
        )
        guard created >= 0, let call else { return nil }
        defer { sd_bus_message_unref(call) }
        var reply: OpaquePointer?
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        guard (try? BusMessage(pointer: call).append([.string(name)])) != nil,
            sd_bus_call(bus, call, 0, &error, &reply) >= 0, let reply
        else { return nil }
        defer { sd_bus_message_unref(reply) }
        guard let values = try? BusMessage(pointer: reply).readAll(), let entries = values.first?.keyedValues,
            let process = entries["ProcessID"]?.uint32Value,
            let user = entries["UnixUserID"]?.uint32Value
        else { return nil }
        return (Int32(bitPattern: process), user)
    }

    /// Serves every call under `prefix` with `handler` (held weakly: the caller keeps it alive).
    func serve(prefix: String, handler: any BusHandler) throws(SecretServiceError) {
        self.handler = handler
        let context = Unmanaged.passUnretained(self).toOpaque()
        let status = prefix.withCString { sd_bus_add_fallback(bus, nil, $0, Bus.dispatch, context) }
        try Self.check(status, "serve \(prefix)")
    }

    /// What became of a `requestName`.
    enum NameRequest: Equatable {
        /// This connection owns the name now.
        case owned
        /// Another connection owns it and keeps it (it did not allow replacement, or `replacing` was false).
        case taken
    }

    /// Claims the well-known `name` at once or not at all: never queued behind its owner, so the service is
    /// either the name's owner or refused (it never answers for the name later, half-way through a start).
    ///
    /// Latchkey requests the name with `ALLOW_REPLACEMENT`, so that a later `latchkey agent --replace` can
    /// take it over; with `replacing`, the request also carries `REPLACE_EXISTING`, which takes the name
    /// from an owner that allowed replacement (gnome-keyring does not: it stays the owner).
    ///
    /// - Throws: `SecretServiceError.failed` when the bus refuses the request for another reason.
    func requestName(_ name: String, replacing: Bool) throws(SecretServiceError) -> NameRequest {
        // sd-bus's flags: REPLACE_EXISTING 1, ALLOW_REPLACEMENT 2, QUEUE 4 (not set: DBUS_NAME_FLAG_DO_NOT_QUEUE).
        let flags: UInt64 = replacing ? 3 : 2
        let status = name.withCString { sd_bus_request_name(bus, $0, flags) }
        if status == -EEXIST { return .taken }
        try Self.check(status, "claim \(name)")
        return .owned
    }

    /// Calls `member` on `destination` and returns the reply's values (a client call, made before `run()` or
    /// on the bus thread).
    ///
    /// - Throws: `SecretServiceError` with the peer's error name and message, or `failed` when the call
    ///   cannot be made or no reply comes within `timeout` seconds.
    func call(
        _ destination: String,
        path: String,
        interface: String,
        member: String,
        arguments: [BusValue] = [],
        timeout: Double = 5
    ) throws(SecretServiceError) -> [BusValue] {
        var call: OpaquePointer?
        try Self.check(
            sd_bus_message_new_method_call(bus, &call, destination, path, interface, member),
            "call \(member) on \(destination)"
        )
        guard let call else { throw .failed("sd-bus made no method call.") }
        defer { sd_bus_message_unref(call) }
        try BusMessage(pointer: call).append(arguments)
        var reply: OpaquePointer?
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        let status = sd_bus_call(bus, call, UInt64(timeout * 1_000_000), &error, &reply)
        guard status >= 0, let reply else {
            if let name = error.name {
                throw SecretServiceError(name: String(cString: name), error.message.map { String(cString: $0) } ?? "")
            }
            throw .failed("Cannot call \(member) on \(destination): \(String(cString: strerror(-status))).")
        }
        defer { sd_bus_message_unref(reply) }
        return try BusMessage(pointer: reply).readAll()
    }

    /// Calls `body` on the bus thread when this connection loses the well-known `name` (the bus daemon's
    /// `NameLost`: another connection replaced it).
    func onNameLost(_ name: String, _ body: @escaping () -> Void) throws(SecretServiceError) {
        lost = body
        let context = Unmanaged.passUnretained(self).toOpaque()
        let rule =
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameLost',"
            + "arg0='\(name)'"
        let status = rule.withCString { sd_bus_add_match(bus, nil, $0, Bus.nameLost, context) }
        try Self.check(status, "watch for the loss of \(name)")
    }

    private static let nameLost: sd_bus_message_handler_t = { _, context, _ in
        guard let context else { return 0 }
        Unmanaged<Bus>.fromOpaque(context).takeUnretainedValue().lost?()
        return 0
    }

    /// Calls `body` with the unique name of each connection that leaves the bus (the bus daemon's
    /// `NameOwnerChanged` with an empty new owner), on the bus thread.
    func onDisconnect(_ body: @escaping (String) -> Void) throws(SecretServiceError) {
        disconnected = body
        let context = Unmanaged.passUnretained(self).toOpaque()
        let rule =
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'"
        let status = rule.withCString { sd_bus_add_match(bus, nil, $0, Bus.nameOwnerChanged, context) }
        try Self.check(status, "watch for clients that leave the bus")
    }

    private static let nameOwnerChanged: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context else { return 0 }
        let bus = Unmanaged<Bus>.fromOpaque(context).takeUnretainedValue()
        guard let values = try? BusMessage(pointer: message).readAll(), values.count == 3,
            let name = values[0].stringValue, name.hasPrefix(":"), values[2].stringValue == ""
        else { return 0 }
        bus.disconnected?(name)
        return 0
    }

    /// Starts the bus thread, which processes messages until the connection ends.
    func run() {
        let thread = Thread { [self] in loop() }
        thread.name = "latchkey-secret-service"
        thread.start()
    }

    private func loop() {
        while true {
            let processed = sd_bus_process(bus, nil)
            if processed < 0 {
                logger.error(
                    "secret service: the bus connection ended",
                    metadata: ["error": "\(String(cString: strerror(-processed)))"]
                )
                return
            }
            if processed > 0 { continue }
            guard waitForWork() else { return }
        }
    }

    /// Waits for the bus's descriptor, its next timeout or a `wake()`; runs `woken` after a wake. Returns
    /// false when waiting is impossible (the connection is gone).
    private func waitForWork() -> Bool {
        let events = sd_bus_get_events(bus)
        guard events >= 0 else {
            logger.error("secret service: the bus connection ended", metadata: ["error": "\(-events)"])
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
            logger.error("secret service: waiting on the bus failed", metadata: ["error": "\(errno)"])
            return false
        }
        if descriptors[1].revents & Int16(POLLIN) != 0 {
            var count: UInt64 = 0
            _ = read(wakeDescriptor, &count, MemoryLayout<UInt64>.size)
            let work = queued.withLock { queued in
                defer { queued.removeAll() }
                return queued
            }
            for item in work { item() }
            woken?()
        }
        return true
    }

    /// Emits a signal (on the bus thread, from inside a handler).
    func emitSignal(path: String, interface: String, member: String, arguments: [BusValue]) {
        var message: OpaquePointer?
        let created = path.withCString { pathPointer in
            interface.withCString { interfacePointer in
                member.withCString { sd_bus_message_new_signal(bus, &message, pathPointer, interfacePointer, $0) }
            }
        }
        guard created >= 0, let message else {
            logger.error("secret service: cannot make a signal", metadata: ["member": "\(member)"])
            return
        }
        defer { sd_bus_message_unref(message) }
        do {
            try BusMessage(pointer: message).append(arguments)
            let sent = sd_bus_send(bus, message, nil)
            if sent < 0 { logger.error("secret service: cannot send a signal", metadata: ["member": "\(member)"]) }
        } catch {
            logger.error("secret service: cannot build a signal", metadata: ["member": "\(member)"])
        }
    }

    /// The sd-bus callback: reads the call, asks the handler, replies.
    private static let dispatch: sd_bus_message_handler_t = { message, context, _ in
        guard let message, let context else { return 0 }
        let bus = Unmanaged<Bus>.fromOpaque(context).takeUnretainedValue()
        var type: UInt8 = 0
        guard sd_bus_message_get_type(message, &type) >= 0, type == UInt8(SD_BUS_MESSAGE_METHOD_CALL)
        else { return 0 }
        bus.answer(BusMessage(pointer: message))
        return 1
    }

    private func answer(_ message: BusMessage) {
        do throws(SecretServiceError) {
            guard let handler else { throw SecretServiceError.unknownMethod("The service is stopping.") }
            let call = BusCall(
                path: message.path,
                interface: message.interface,
                member: message.member,
                sender: message.sender,
                arguments: try message.readAll()
            )
            let results = try handler.handle(call, on: self)
            var reply: OpaquePointer?
            try Self.check(sd_bus_message_new_method_return(message.pointer, &reply), "make a reply")
            guard let reply else { throw SecretServiceError.failed("sd-bus made no reply.") }
            defer { sd_bus_message_unref(reply) }
            try BusMessage(pointer: reply).append(results)
            try Self.check(sd_bus_send(bus, reply, nil), "send a reply")
        } catch {
            replyError(to: message, error)
        }
    }

    private func replyError(to message: BusMessage, _ error: SecretServiceError) {
        var busError = sd_bus_error()
        _ = error.name.withCString { name in
            error.message.withCString { sd_bus_error_set(&busError, name, $0) }
        }
        defer { sd_bus_error_free(&busError) }
        let sent = sd_bus_reply_method_error(message.pointer, &busError)
        if sent < 0 {
            logger.error("secret service: cannot send an error reply", metadata: ["member": "\(message.member)"])
        }
    }

    private static func check(_ status: Int32, _ action: String) throws(SecretServiceError) {
        guard status >= 0 else {
            throw .failed("Cannot \(action): \(String(cString: strerror(-status))).")
        }
    }
}
