import Foundation

/// What the agent tells a client when it accepts its connection: which keychain it serves, the access
/// groups it gives this client (decided from the client's executable, never from its claim), and its lock
/// state at that moment.
public struct AgentWelcome: Sendable, Hashable, Codable {
    /// The keychain file the agent serves, absolute and symlink-free.
    public var keychain: String
    /// The client's access groups, in order; the first is where new items go.
    public var accessGroups: [String]
    /// The agent's lock state when the client connected (one state for every client).
    public var lockState: LockState
    /// The client's identity: its executable as the kernel reports it (`/proc/<pid>/exe`), or, when that is
    /// a known interpreter running a script file, the script (absolute and symlink-free).
    public var executable: String
    /// The interpreter running the script named by `executable`, or `nil` when the identity is the
    /// executable itself (absent from older agents).
    public var interpreter: String?
    /// The agent's process id.
    public var agentProcess: Int32

    /// Makes a welcome.
    public init(
        keychain: String,
        accessGroups: [String],
        lockState: LockState,
        executable: String,
        interpreter: String? = nil,
        agentProcess: Int32
    ) {
        self.keychain = keychain
        self.accessGroups = accessGroups
        self.lockState = lockState
        self.executable = executable
        self.interpreter = interpreter
        self.agentProcess = agentProcess
    }
}
