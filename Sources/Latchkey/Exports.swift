// `SecretData` lives in LatchkeyCrypto (the layer that zeroes it) and is part of Latchkey's public API.
@_exported import struct LatchkeyCrypto.SecretData
