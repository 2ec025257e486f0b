// Binds the libcrypto functions Latchkey uses to libcrypto.so.3 on first use (see include/CLatchkeyOpenSSL.h).
// Each definition has the prototype declared in include/CLatchkeyOpenSSL.h (OpenSSL's own); when the library cannot be
// loaded every function fails as OpenSSL reports failure (NULL or 0).
#include "CLatchkeyOpenSSL.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static void *library;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!library) snprintf(failure, sizeof failure, "%s", dlerror());
}

const char *latchkey_libcrypto_load_error(void) {
    pthread_once(&loaded, load);
    return library ? NULL : failure;
}

static void *symbol(_Atomic(void *) *cache, const char *name) {
    void *function = atomic_load_explicit(cache, memory_order_acquire);
    if (function) return function;
    pthread_once(&loaded, load);
    function = library ? dlsym(library, name) : NULL;
    atomic_store_explicit(cache, function, memory_order_release);
    return function;
}

#define LAZY(type, name, parameters, arguments, failed)                                                  \
    type name parameters {                                                                              \
        static _Atomic(void *) cache;                                                                   \
        void *function = symbol(&cache, #name);                                                         \
        if (!function) return failed;                                                                   \
        return ((type(*) parameters)function) arguments;                                                \
    }

#define LAZY_VOID(name, parameters, arguments)                                                           \
    void name parameters {                                                                              \
        static _Atomic(void *) cache;                                                                   \
        void *function = symbol(&cache, #name);                                                         \
        if (function) ((void(*) parameters)function) arguments;                                          \
    }

LAZY(BN_CTX *, BN_CTX_new, (void), (), NULL)
LAZY_VOID(BN_CTX_free, (BN_CTX *c), (c))
LAZY(BIGNUM *, BN_new, (void), (), NULL)
LAZY_VOID(BN_free, (BIGNUM *a), (a))
LAZY_VOID(BN_clear_free, (BIGNUM *a), (a))
LAZY(BIGNUM *, BN_bin2bn, (const unsigned char *s, int len, BIGNUM *ret), (s, len, ret), NULL)
LAZY(int, BN_bn2bin, (const BIGNUM *a, unsigned char *to), (a, to), 0)
LAZY(int, BN_bn2binpad, (const BIGNUM *a, unsigned char *to, int tolen), (a, to, tolen), -1)
LAZY(int, BN_cmp, (const BIGNUM *a, const BIGNUM *b), (a, b), 0)
LAZY(BIGNUM *, BN_copy, (BIGNUM *a, const BIGNUM *b), (a, b), NULL)
LAZY(int, BN_is_one, (const BIGNUM *a), (a), 0)
LAZY(int, BN_is_zero, (const BIGNUM *a), (a), 0)
LAZY(int, BN_num_bits, (const BIGNUM *a), (a), 0)
LAZY(int, BN_set_word, (BIGNUM *a, BN_ULONG w), (a, w), 0)
LAZY(int, BN_sub_word, (BIGNUM *a, BN_ULONG w), (a, w), 0)
LAZY_VOID(BN_set_flags, (BIGNUM *b, int n), (b, n))
LAZY(int, BN_mod_exp_mont_consttime,
     (BIGNUM *rr, const BIGNUM *a, const BIGNUM *p, const BIGNUM *m, BN_CTX *ctx, BN_MONT_CTX *in_mont),
     (rr, a, p, m, ctx, in_mont), 0)
