#define _GNU_SOURCE
#include "CLatchkeyAgent.h"

#include <malloc.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif

int latchkey_peer_credentials(int descriptor, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int latchkey_set_non_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

int latchkey_is_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

int latchkey_memlock_unlimited(unsigned long long *current) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0) return -1;
    *current = (unsigned long long)limit.rlim_cur;
    return limit.rlim_cur == RLIM_INFINITY ? 1 : 0;
}

static int latchkey_memory_locked = 0;

int latchkey_lock_all_memory(void) {
    int result = mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT);
    if (result == 0) latchkey_memory_locked = 1;
    return result;
}

int latchkey_accept(int descriptor) { return accept4(descriptor, NULL, NULL, SOCK_CLOEXEC); }

int latchkey_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int latchkey_set_arena_max(int arenas) { return mallopt(M_ARENA_MAX, arenas); }

/* malloc_trim gives free pages back with madvise(MADV_DONTNEED), which the kernel refuses on locked pages: while
   the process's memory is locked, it is unlocked for the trim and locked again (MCL_ONFAULT: only what is
   resident is locked at once, nothing is faulted in). */
int latchkey_trim_memory(void) {
    if (!latchkey_memory_locked) return malloc_trim(0);
    munlockall();
    int trimmed = malloc_trim(0);
    if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) != 0) latchkey_memory_locked = 0;
    return trimmed;
}
