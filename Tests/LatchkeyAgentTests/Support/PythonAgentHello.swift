import Latchkey

/// A Python function that sends the agent's JSON hello on a connected socket and returns the reply's JSON
/// text, for tests whose client is a Python program (a script identity, connect-then-exec).
///
/// ```swift
/// let script = PythonAgentHello.function + "print(hello(s))\n"
/// ```
enum PythonAgentHello {
    /// `def hello(s, groups=None)`: sends `{"version", "accessGroups"}` framed with a 4-byte big-endian
    /// length and returns the reply's payload decoded as text. Needs `json` and `struct` imported.
    static let function = """
        def hello(s, groups=None):
            payload = json.dumps({"version": \(AgentHandshake.version), "accessGroups": groups}).encode()
            s.sendall(struct.pack(">I", len(payload)) + payload)
            data = b""
            while len(data) < 4 or len(data) < 4 + struct.unpack(">I", data[:4])[0]:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            return data[4:].decode()

        """
}
