// OpenSSL's libcrypto (Debian: libssl-dev for the headers): the constant-time modular exponentiation
// (BN_mod_exp_mont_consttime) of the Secret Service's Diffie-Hellman session algorithm.
//
// The library is not linked: lazy.c defines each function used with OpenSSL's own prototype and binds it to
// libcrypto.so.3 with dlopen on first use. Linking it cost every `latchkey` process about 1 ms of start-up
// (libcrypto's initialisation), for a session algorithm only `latchkey agent --secret-service` uses.
#include <openssl/bn.h>
#include <openssl/crypto.h>

/// NULL when libcrypto.so.3 is loaded (loading it on the first call), else why it could not be loaded.
const char *latchkey_libcrypto_load_error(void);
