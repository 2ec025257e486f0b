// See include/CLatchkeyLazy.h.
#include "CLatchkeyLazy.h"

#include <dlfcn.h>
#include <stdio.h>

// pthread_once takes no argument: the library being loaded is handed over through this thread's slot.
static _Thread_local struct latchkey_lazy_library *loading;

static void load(void) {
    loading->handle = dlopen(loading->name, RTLD_NOW | RTLD_LOCAL);
    if (!loading->handle) snprintf(loading->failure, sizeof loading->failure, "%s", dlerror());
}

const char *latchkey_lazy_load_error(struct latchkey_lazy_library *library) {
    loading = library;
    pthread_once(&library->once, load);
    return library->handle ? NULL : library->failure;
}

void *latchkey_lazy_symbol(struct latchkey_lazy_library *library, _Atomic(void *) *cache, const char *symbol) {
    void *function = atomic_load_explicit(cache, memory_order_acquire);
    if (function) return function;
    if (latchkey_lazy_load_error(library)) return NULL;
    function = dlsym(library->handle, symbol);
    atomic_store_explicit(cache, function, memory_order_release);
    return function;
}
