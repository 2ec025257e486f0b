// OpenSSL's libcrypto (libcrypto.so.3, Debian's libssl3): the constant-time modular exponentiation
// (BN_mod_exp_mont_consttime) of the Secret Service's Diffie-Hellman session algorithm.
//
// The library is neither linked nor needed to build: lazy.c binds each function below to libcrypto.so.3 with
// dlopen on first use, and this header declares what Latchkey uses of OpenSSL 3's BN interface (the
// prototypes of <openssl/bn.h>, with BN_ULONG as on 64-bit Linux), so that a build needs no libssl-dev.
// Linking it cost every `latchkey` process about 1 ms of start-up (libcrypto's initialisation), for a session
// algorithm only `latchkey agent --secret-service` uses.
#ifndef LATCHKEY_CLATCHKEYOPENSSL_H
#define LATCHKEY_CLATCHKEYOPENSSL_H

typedef struct bignum_st BIGNUM;
typedef struct bignum_ctx BN_CTX;
typedef struct bn_mont_ctx_st BN_MONT_CTX;
typedef unsigned long BN_ULONG;

#define BN_FLG_CONSTTIME 0x04

/// NULL when libcrypto.so.3 is loaded (loading it on the first call), else why it could not be loaded.
const char *latchkey_libcrypto_load_error(void);

BN_CTX *BN_CTX_new(void);
void BN_CTX_free(BN_CTX *c);
BIGNUM *BN_new(void);
void BN_free(BIGNUM *a);
void BN_clear_free(BIGNUM *a);
BIGNUM *BN_bin2bn(const unsigned char *s, int len, BIGNUM *ret);
int BN_bn2bin(const BIGNUM *a, unsigned char *to);
int BN_bn2binpad(const BIGNUM *a, unsigned char *to, int tolen);
int BN_cmp(const BIGNUM *a, const BIGNUM *b);
BIGNUM *BN_copy(BIGNUM *a, const BIGNUM *b);
int BN_is_one(const BIGNUM *a);
int BN_is_zero(const BIGNUM *a);
int BN_num_bits(const BIGNUM *a);
int BN_set_word(BIGNUM *a, BN_ULONG w);
int BN_sub_word(BIGNUM *a, BN_ULONG w);
void BN_set_flags(BIGNUM *b, int n);
int BN_mod_exp_mont_consttime(BIGNUM *rr, const BIGNUM *a, const BIGNUM *p, const BIGNUM *m, BN_CTX *ctx,
                              BN_MONT_CTX *in_mont);

#endif
