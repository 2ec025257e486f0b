// Binds the libcrypto functions Latchkey uses to libcrypto.so.3 on first use (see include/CLatchkeyOpenSSL.h).
// Each definition has the prototype declared in include/CLatchkeyOpenSSL.h (OpenSSL's own); when the library cannot be
// loaded every function fails as OpenSSL reports failure (NULL or 0).
#include "CLatchkeyOpenSSL.h"
#include "CLatchkeyLazy.h"

#include <errno.h>
#include <stddef.h>

static struct latchkey_lazy_library library = LATCHKEY_LAZY_LIBRARY("libcrypto.so.3");

const char *latchkey_libcrypto_load_error(void) { return latchkey_lazy_load_error(&library); }

LATCHKEY_LAZY(library, BN_CTX *, BN_CTX_new, (void), (), NULL)
LATCHKEY_LAZY_VOID(library, BN_CTX_free, (BN_CTX *c), (c))
LATCHKEY_LAZY(library, BIGNUM *, BN_new, (void), (), NULL)
LATCHKEY_LAZY_VOID(library, BN_free, (BIGNUM *a), (a))
LATCHKEY_LAZY_VOID(library, BN_clear_free, (BIGNUM *a), (a))
LATCHKEY_LAZY(library, BIGNUM *, BN_bin2bn, (const unsigned char *s, int len, BIGNUM *ret), (s, len, ret), NULL)
LATCHKEY_LAZY(library, int, BN_bn2bin, (const BIGNUM *a, unsigned char *to), (a, to), 0)
LATCHKEY_LAZY(library, int, BN_bn2binpad, (const BIGNUM *a, unsigned char *to, int tolen), (a, to, tolen), -1)
LATCHKEY_LAZY(library, int, BN_cmp, (const BIGNUM *a, const BIGNUM *b), (a, b), 0)
LATCHKEY_LAZY(library, BIGNUM *, BN_copy, (BIGNUM *a, const BIGNUM *b), (a, b), NULL)
LATCHKEY_LAZY(library, int, BN_is_one, (const BIGNUM *a), (a), 0)
LATCHKEY_LAZY(library, int, BN_is_zero, (const BIGNUM *a), (a), 0)
LATCHKEY_LAZY(library, int, BN_num_bits, (const BIGNUM *a), (a), 0)
LATCHKEY_LAZY(library, int, BN_set_word, (BIGNUM *a, BN_ULONG w), (a, w), 0)
LATCHKEY_LAZY(library, int, BN_sub_word, (BIGNUM *a, BN_ULONG w), (a, w), 0)
LATCHKEY_LAZY_VOID(library, BN_set_flags, (BIGNUM *b, int n), (b, n))
LATCHKEY_LAZY(library, int, BN_mod_exp_mont_consttime,
     (BIGNUM *rr, const BIGNUM *a, const BIGNUM *p, const BIGNUM *m, BN_CTX *ctx, BN_MONT_CTX *in_mont),
     (rr, a, p, m, ctx, in_mont), 0)
