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

int latchkey_lock_all_memory(void) { return mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT); }

int latchkey_accept(int descriptor) { return accept4(descriptor, NULL, NULL, SOCK_CLOEXEC); }

int latchkey_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int latchkey_set_arena_max(int arenas) { return mallopt(M_ARENA_MAX, arenas); }

int latchkey_trim_memory(void) { return malloc_trim(0); }
