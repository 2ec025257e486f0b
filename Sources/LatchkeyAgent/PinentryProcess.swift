import CLatchkeyAgent
import Foundation
import Latchkey
import LatchkeyCrypto

#if canImport(Glibc)
import Glibc
#endif

/// One running pinentry program and the Assuan conversation with it.
///
/// The program gets one end of a socket pair as its standard input and output (so that a pinentry that
/// died makes a write fail with `EPIPE`, sent with `MSG_NOSIGNAL`, instead of a `SIGPIPE` to the agent),
/// `/dev/null` as its standard error, and the environment it is given. It is started with `posix_spawn`,
/// not Foundation's `Process`, whose concurrent launches are not safe (swift-corelibs-foundation #4772).
/// Every read waits at most until the conversation's deadline; a pinentry that does not answer in time is
/// killed. When the conversation asks for a client of the agent, every read also watches that client's
/// socket: the client hanging up ends the conversation at once (the pinentry is killed), so that a question
/// nobody waits for does not hold up the questions after it.
final class PinentryProcess {
    private let process: pid_t
    private let socket: Int32
    private let deadline: ContinuousClock.Instant
    private let client: Int32?
    private var buffer: [UInt8] = []
    private var finished = false
    /// Whether the conversation was given up (no answer in time, or the client went away): no `BYE`.
    private var abandoned = false

    /// What went wrong in a conversation.
    enum Failure: Error, Equatable {
        /// The program could not be started.
        case cannotStart(String)
        /// No answer before the deadline.
        case timedOut
        /// The program closed its end or sent something that is not Assuan.
        case broken(String)
        /// The client the question was for hung up before the answer.
        case clientGone
    }

    private init(process: pid_t, socket: Int32, deadline: ContinuousClock.Instant, client: Int32?) {
        self.process = process
        self.socket = socket
        self.deadline = deadline
        self.client = client
    }

    /// Whether the client connected on socket `descriptor` hung up (or its socket failed), without waiting.
    static func clientGone(_ descriptor: Int32) -> Bool {
        var watched = pollfd(fd: descriptor, events: Int16(LATCHKEY_POLLRDHUP), revents: 0)
        return poll(&watched, 1, 0) > 0 && watched.revents != 0
    }

    deinit { finish() }

    /// Starts `program` and reads its greeting.
    ///
    /// - Parameters:
    ///   - program: The pinentry program's absolute path.
    ///   - environment: Its whole environment (`KEY=value`).
    ///   - timeout: How long the whole conversation may take, in seconds.
    ///   - client: The socket of the client the question is for, watched during the conversation; `nil`
    ///     when it has none (the Secret Service).
    static func start(
        _ program: String,
        environment: [String],
        timeout: TimeInterval,
        watching client: Int32? = nil
    ) throws(Failure) -> PinentryProcess {
        if let client, clientGone(client) { throw .clientGone }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .cannotStart("socketpair: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
        _ = "/dev/null".withCString { posix_spawn_file_actions_addopen(&actions, 2, $0, O_WRONLY, 0) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup(program), nil]
        let variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in arguments { free(pointer) }
            for pointer in variables { free(pointer) }
        }
        var process: pid_t = 0
        let status = posix_spawn(&process, program, &actions, &attributes, arguments, variables)
        close(pair[1])
        guard status == 0 else {
            close(pair[0])
            throw .cannotStart("\(program): \(String(cString: strerror(status)))")
        }
        let conversation = PinentryProcess(
            process: process,
            socket: pair[0],
            deadline: .now + .milliseconds(Int64(max(timeout, 0) * 1000)),
            client: client
        )
        let greeting = try conversation.response()
        guard greeting == .ok else { throw .broken("pinentry did not greet with OK") }
        return conversation
    }

    /// Sends one command line (its parameters already escaped) and returns the final response, `OK` or
    /// `ERR`, collecting the `D` lines before it into `data` (wiped by the caller).
    @discardableResult
    func command(_ line: String, data: inout [UInt8]) throws(Failure) -> Assuan.Response {
        try send(line)
        while true {
            let response = try response()
            switch response {
            case .ok, .error: return response
            case .data(var bytes):
                data.append(contentsOf: bytes)
                wipe(&bytes)
            case .inquire: try send("CAN")
            case .status, .comment: continue
            }
        }
    }

    /// Sends one command line and returns its final response (for commands that send no data).
    @discardableResult
    func command(_ line: String) throws(Failure) -> Assuan.Response {
        var data: [UInt8] = []
        defer { wipe(&data) }
        return try command(line, data: &data)
    }

    /// Says `BYE` and gives the program up to a second to close its end and exit (a curses pinentry restores
    /// the terminal on its way out), then closes the socket and reaps the process, killing it when it is still
    /// running. A conversation that timed out, or whose client went away, is ended at once.
    func finish() {
        guard !finished else { return }
        finished = true
        if !buffer.isEmpty { wipe(&buffer) }
        var status: Int32 = 0
        var reaped = false
        if !abandoned {
            _ = "BYE\n".withCString { Glibc.send(socket, $0, 4, Int32(MSG_NOSIGNAL)) }
            let grace = ContinuousClock.now + .seconds(1)
            var scratch = [UInt8](repeating: 0, count: 256)
            while ContinuousClock.now < grace {
                var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 50) >= 0 || errno == EINTR else { break }
                if descriptor.revents != 0, recv(socket, &scratch, scratch.count, Int32(MSG_DONTWAIT)) == 0 { break }
            }
            for _ in 0..<20 {
                if waitpid(process, &status, WNOHANG) != 0 {
                    reaped = true
                    break
                }
                _ = poll(nil, 0, 10)
            }
        }
        close(socket)
        if !reaped, waitpid(process, &status, WNOHANG) == 0 {
            kill(process, SIGKILL)
            while waitpid(process, &status, 0) < 0 && errno == EINTR {}
        }
    }

    private func send(_ line: String) throws(Failure) {
        var bytes = Array(line.utf8) + [UInt8(ascii: "\n")]
        defer { wipe(&bytes) }
        guard bytes.count <= Assuan.maximumLineLength else { throw .broken("command line too long") }
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { raw in
                Glibc.send(socket, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .broken("write: \(String(cString: strerror(errno)))")
            }
            sent += count
        }
    }

    /// The next response line, waiting until the deadline.
    private func response() throws(Failure) -> Assuan.Response {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                defer { wipe(&line) }
                return Assuan.parse(line)
            }
            guard buffer.count < Assuan.maximumLineLength else { throw .broken("response line too long") }
            try waitForInput()
            var chunk = [UInt8](repeating: 0, count: 1024)
            defer { wipe(&chunk) }
            let count = recv(socket, &chunk, chunk.count, 0)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .broken("read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { throw .broken("pinentry closed the conversation") }
            // Grow by copying into a new buffer and wiping the old one, so no stale copy of a PIN is left.
            var grown = [UInt8]()
            grown.reserveCapacity(buffer.count + count)
            grown.append(contentsOf: buffer)
            grown.append(contentsOf: chunk[0..<count])
            wipe(&buffer)
            buffer = grown
        }
    }

    private func waitForInput() throws(Failure) {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else {
                abandoned = true
                throw .timedOut
            }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            // The client's socket is watched for its hang-up only (POLLHUP and POLLERR are always reported):
            // bytes it sends early stay unread.
            var descriptors = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: client ?? -1, events: Int16(LATCHKEY_POLLRDHUP), revents: 0),
            ]
            let ready = poll(&descriptors, client == nil ? 1 : 2, milliseconds)
            if ready < 0 && errno != EINTR { throw .broken("poll: \(String(cString: strerror(errno)))") }
            if ready > 0 && descriptors[1].revents != 0 {
                abandoned = true
                throw .clientGone
            }
            if ready > 0 { return }
        }
    }
}
