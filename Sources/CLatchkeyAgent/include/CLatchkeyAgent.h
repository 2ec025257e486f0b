#ifndef C_LATCHKEY_AGENT_H
#define C_LATCHKEY_AGENT_H

#include <sys/types.h>

/// The credentials the kernel recorded for the peer of a connected Unix socket (SO_PEERCRED): the
/// process id, user id and group id at connect time. Returns 0, or -1 with errno set.
int latchkey_peer_credentials(int descriptor, pid_t *pid, uid_t *uid, gid_t *gid);

/// Marks the process non-dumpable (prctl PR_SET_DUMPABLE 0): no core dump, and processes of the same
/// user without CAP_SYS_PTRACE can neither ptrace it nor read its /proc/<pid>/mem. Returns 0, or -1.
int latchkey_set_non_dumpable(void);

/// Whether the process is dumpable (prctl PR_GET_DUMPABLE): 1, 0, or -1 on error.
int latchkey_is_dumpable(void);

/// Whether the soft locked-memory limit (RLIMIT_MEMLOCK) is unlimited: 1, 0, or -1 on error; `current`
/// receives the limit in bytes.
int latchkey_memlock_unlimited(unsigned long long *current);

/// Locks the process's present and future pages in memory as they are touched
/// (mlockall MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT). Returns 0, or -1 with errno set.
int latchkey_lock_all_memory(void);

/// accept(2) with the new descriptor close-on-exec (accept4 SOCK_CLOEXEC). Returns it, or -1 with errno set.
int latchkey_accept(int descriptor);

/// poll(2)'s POLLRDHUP (the peer closed its end of a stream socket), which Swift's Glibc module does not
/// export (it needs _GNU_SOURCE).
#define LATCHKEY_POLLRDHUP 0x2000

/// Makes glibc's malloc serve every allocation of at least `bytes` with its own mmap, returned to the system
/// when freed (mallopt M_MMAP_THRESHOLD; a fixed value also stops glibc from raising the threshold after a
/// large block is freed). Returns 1 on success, 0 on failure.
int latchkey_set_mmap_threshold(int bytes);

/// Limits glibc's malloc to `arenas` arenas (mallopt M_ARENA_MAX): threads share them instead of each
/// getting one of up to 8 per CPU, whose free memory malloc_trim cannot return. Returns 1 on success.
int latchkey_set_arena_max(int arenas);

/// Returns the free memory at the top and inside every malloc arena to the system (malloc_trim(0)).
/// Returns 1 when memory was released, 0 otherwise.
int latchkey_trim_memory(void);

#endif
