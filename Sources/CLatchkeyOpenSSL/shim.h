// OpenSSL's libcrypto (Debian: libssl-dev): the constant-time modular exponentiation
// (BN_mod_exp_mont_consttime) of the Secret Service's Diffie-Hellman session algorithm.
#include <openssl/bn.h>
#include <openssl/crypto.h>
