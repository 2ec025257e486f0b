#if !canImport(Darwin)
import Foundation

/// The message of the last failed `SecItem*` call, one per thread (`LatchkeySecurity.lastErrorMessage`).
///
/// Kept in thread-specific storage: every successful call clears it, and with nothing recorded that is one
/// `pthread_getspecific`, where the thread dictionary bridged and hashed its key on every call.
enum LastErrorSlot {
    /// A recorded message, owned by the slot (released when replaced or when its thread exits).
    private final class Message {
        let text: String

        init(_ text: String) { self.text = text }
    }

    /// The thread-specific key; `nil` when the process has no key left, and then the thread dictionary
    /// holds the message.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<Message>.fromOpaque(pointer).release() }
        }
        return status == 0 ? key : nil
    }()

    private static let threadDictionaryKey = "latchkey.security.lastError"

    /// This thread's last recorded message.
    static var message: String? {
        guard let key else { return Thread.current.threadDictionary[threadDictionaryKey] as? String }
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<Message>.fromOpaque(pointer).takeUnretainedValue().text
    }

    /// Records `message` for this thread; `nil` clears it.
    static func record(_ message: String?) {
        guard let key else {
            Thread.current.threadDictionary[threadDictionaryKey] = message
            return
        }
        let previous = pthread_getspecific(key)
        if message == nil, previous == nil { return }
        let next = message.map { Unmanaged.passRetained(Message($0)).toOpaque() }
        guard pthread_setspecific(key, next) == 0 else {
            if let next { Unmanaged<Message>.fromOpaque(next).release() }
            return
        }
        if let previous { Unmanaged<Message>.fromOpaque(previous).release() }
    }
}
#endif
