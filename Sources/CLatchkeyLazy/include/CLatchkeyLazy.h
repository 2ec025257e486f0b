// Binding a shared library's functions on first use (dlopen, then dlsym once per function), for the
// libraries only `latchkey agent --secret-service` needs (CSystemdBus, CLatchkeyOpenSSL): linked, they slowed
// the start of every `latchkey` process.
#ifndef LATCHKEY_CLATCHKEYLAZY_H
#define LATCHKEY_CLATCHKEYLAZY_H

#include <pthread.h>
#include <stdatomic.h>

/// One library, loaded at most once: `name` (its soname) is opened on the first lookup.
struct latchkey_lazy_library {
    const char *name;
    pthread_once_t once;
    void *handle;
    char failure[512];
};

/// A library that nothing has loaded yet.
#define LATCHKEY_LAZY_LIBRARY(soname) {.name = (soname), .once = PTHREAD_ONCE_INIT}

/// NULL when `library` is loaded (loading it now if needed), else dlopen's reason.
const char *latchkey_lazy_load_error(struct latchkey_lazy_library *library);

/// The address of `symbol` in `library` (cached in `cache`), or NULL when either is missing.
void *latchkey_lazy_symbol(struct latchkey_lazy_library *library, _Atomic(void *) *cache, const char *symbol);

/// Defines `type name parameters` to call the library's `name`, or return `failed` when it is missing.
#define LATCHKEY_LAZY(library, type, name, parameters, arguments, failed)                                \
    type name parameters {                                                                              \
        static _Atomic(void *) cache;                                                                   \
        void *function = latchkey_lazy_symbol(&(library), &cache, #name);                               \
        if (!function) return failed;                                                                   \
        return ((type(*) parameters)function) arguments;                                                \
    }

/// Defines `void name parameters` to call the library's `name`, or do nothing when it is missing.
#define LATCHKEY_LAZY_VOID(library, name, parameters, arguments)                                         \
    void name parameters {                                                                              \
        static _Atomic(void *) cache;                                                                   \
        void *function = latchkey_lazy_symbol(&(library), &cache, #name);                               \
        if (function) ((void(*) parameters)function) arguments;                                          \
    }

#endif
