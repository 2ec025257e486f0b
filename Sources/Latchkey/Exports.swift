// The engine's public types (`KeychainError`, `ItemQuery`, `AttributeName`, `LockState` ...) are part of
// Latchkey's public API; its `package` symbols stay inside this package.
@_exported import LatchkeyEngine
// `SecretData` lives in LatchkeyCrypto (the layer that zeroes it) and is part of Latchkey's public API.
@_exported import struct LatchkeyCrypto.SecretData
