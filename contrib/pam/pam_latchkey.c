/*
 * pam_latchkey.so: unlocks the user's Latchkey keychain with the login password, and follows password changes.
 *
 * Build (no libpam0g-dev needed: the few PAM functions and constants used are declared below, and libpam is
 * already loaded in every process that loads a module; scripts/install.sh sets LATCHKEY_BINARY):
 *
 *   cc -shared -fPIC -O2 -Wall -Wextra -DLATCHKEY_BINARY='"/usr/local/bin/latchkey"' \
 *       -o pam_latchkey.so contrib/pam/pam_latchkey.c
 *
 * The module does no keychain work itself: it runs the installed `latchkey` as the PAM user (privileges
 * dropped for good, environment cleared) and hands it the password on its standard input, a socket pair;
 * the password never appears in argv, the environment, a log or a file.
 *
 *   auth      keeps a copy of PAM_AUTHTOK for the session (pam_set_data; zeroed when PAM ends or the
 *             session used it); when the user's agent socket exists (a screen unlock, a second login), it
 *             runs `latchkey pam-unlock --if-running` at once.
 *   session   with a kept password: `latchkey pam-unlock`, which finds or starts the user's agent and unlocks
 *             it (the first unlock creates the login keychain). Without one (fingerprint, autologin): nothing.
 *   password  in PAM_UPDATE_AUTHTOK: `latchkey pam-passwd` with the old and the new password (NUL-separated);
 *             the keychain's passphrase changes only when the old password opens it. When PAM_OLDAUTHTOK is
 *             unset (root changing a password), it asks for the keychain's current password through the
 *             conversation; an empty answer leaves the keychain as it is.
 *
 * The module never fails a stack: auth answers PAM_IGNORE, session and password PAM_SUCCESS; what went wrong is
 * logged through pam_syslog (never a secret). Arguments:
 *
 *   latchkey=PATH      the latchkey executable (default LATCHKEY_BINARY)
 *   runtime_dir=DIR    the user's runtime directory when the session has no XDG_RUNTIME_DIR and no
 *                      /run/user/<uid> (systems without logind; tests)
 *   timeout=SECONDS    how long a login waits for latchkey before killing it (default 10)
 *
 * See docs/install.md, "Unlock at login (PAM)".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#ifndef LATCHKEY_BINARY
#define LATCHKEY_BINARY "/usr/local/bin/latchkey"
#endif

/* ---- The part of Linux-PAM's module interface used here (security/pam_modules.h, pam_ext.h, _pam_types.h),
 * declared so that the module builds without libpam0g-dev. The values are Linux-PAM's ABI. */
typedef struct pam_handle pam_handle_t;

#define PAM_SUCCESS 0
#define PAM_IGNORE 25
#define PAM_USER 2
#define PAM_AUTHTOK 6
#define PAM_OLDAUTHTOK 7
#define PAM_SILENT 0x8000U
#define PAM_PRELIM_CHECK 0x4000
#define PAM_UPDATE_AUTHTOK 0x2000
#define PAM_PROMPT_ECHO_OFF 1
#define PAM_TEXT_INFO 4

extern int pam_get_item(const pam_handle_t *pamh, int item_type, const void **item);
extern int pam_get_user(pam_handle_t *pamh, const char **user, const char *prompt);
extern const char *pam_getenv(pam_handle_t *pamh, const char *name);
extern int pam_set_data(pam_handle_t *pamh, const char *module_data_name, void *data,
                        void (*cleanup)(pam_handle_t *pamh, void *data, int error_status));
extern int pam_get_data(const pam_handle_t *pamh, const char *module_data_name, const void **data);
extern void pam_syslog(const pam_handle_t *pamh, int priority, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
extern int pam_prompt(pam_handle_t *pamh, int style, char **response, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define PAM_EXPORT __attribute__((visibility("default")))

/* ---- pam_set_data names */
#define DATA_PASSWORD "pam_latchkey_password" /* the login password, from auth to session */
#define DATA_UNLOCKED "pam_latchkey_unlocked" /* auth unlocked a running agent: the session has nothing to do */

/* The module's arguments. */
struct options {
    const char *latchkey;
    const char *runtime_dir;
    int timeout;
};

static void parse_options(pam_handle_t *pamh, int argc, const char **argv, struct options *options) {
    options->latchkey = LATCHKEY_BINARY;
    options->runtime_dir = NULL;
    options->timeout = 10;
    for (int index = 0; index < argc; index++) {
        const char *argument = argv[index];
        if (strncmp(argument, "latchkey=", 9) == 0 && argument[9] == '/') {
            options->latchkey = argument + 9;
        } else if (strncmp(argument, "runtime_dir=", 12) == 0 && argument[12] == '/') {
            options->runtime_dir = argument + 12;
        } else if (strncmp(argument, "timeout=", 8) == 0 && atoi(argument + 8) > 0) {
            options->timeout = atoi(argument + 8);
        } else {
            pam_syslog(pamh, LOG_WARNING, "unknown or malformed argument ignored: %s", argument);
        }
    }
}

/* Zeroes and frees a kept password (pam_set_data's cleanup: at pam_end, or when it is replaced). */
static void forget_password(pam_handle_t *pamh, void *data, int error_status) {
    (void)pamh;
    (void)error_status;
    if (data != NULL) {
        explicit_bzero(data, strlen(data));
        free(data);
    }
}

static void forget_flag(pam_handle_t *pamh, void *data, int error_status) {
    (void)pamh;
    (void)error_status;
    free(data);
}

/* The PAM user's account, in `storage`; NULL (logged) when there is none. */
static struct passwd *pam_user(pam_handle_t *pamh, struct passwd *account, char *storage, size_t size) {
    const char *user = NULL;
    if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL || user[0] == '\0') {
        pam_syslog(pamh, LOG_ERR, "no user name");
        return NULL;
    }
    struct passwd *found = NULL;
    if (getpwnam_r(user, account, storage, size, &found) != 0 || found == NULL) {
        pam_syslog(pamh, LOG_ERR, "no account for user %s", user);
        return NULL;
    }
    return found;
}

/* The user's runtime directory: runtime_dir=, else the session's XDG_RUNTIME_DIR, else /run/user/<uid>. */
static void runtime_directory(pam_handle_t *pamh, const struct options *options, const struct passwd *account,
                              char *out, size_t size) {
    const char *session = pam_getenv(pamh, "XDG_RUNTIME_DIR");
    if (options->runtime_dir != NULL) {
        snprintf(out, size, "%s", options->runtime_dir);
    } else if (session != NULL && session[0] == '/') {
        snprintf(out, size, "%s", session);
    } else {
        snprintf(out, size, "/run/user/%lu", (unsigned long)account->pw_uid);
    }
}

/* Whether the user's agent socket exists (an agent runs, or systemd listens for one). */
static int agent_socket_exists(const char *runtime) {
    char path[PATH_MAX];
    struct stat info;
    if (snprintf(path, sizeof path, "%s/latchkey/agent.sock", runtime) >= (int)sizeof path) return 0;
    return stat(path, &info) == 0 && S_ISSOCK(info.st_mode);
}

static long long now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Keeps what latchkey wrote on standard error (its messages name no secret) as one printable line. */
static void keep_message(char *message, size_t size, size_t *length, const char *bytes, ssize_t count) {
    for (ssize_t index = 0; index < count && *length + 1 < size; index++) {
        unsigned char byte = (unsigned char)bytes[index];
        message[(*length)++] = (byte == '\n' || byte == '\t') ? ' ' : (byte < 0x20 || byte == 0x7f) ? '?' : byte;
    }
    message[*length] = '\0';
}

/*
 * Runs `<latchkey> <command> [<flag>]` as the PAM user and writes `input` (`length` bytes) on its standard
 * input. Returns its exit status, or -1 when it could not run or was killed at the deadline; its standard
 * error is kept in `message`.
 */
static int run_latchkey(pam_handle_t *pamh, const struct options *options, const struct passwd *account,
                        const char *runtime, const char *command, const char *flag, const char *input,
                        size_t length, char *message, size_t message_size) {
    message[0] = '\0';
    /* Everything the child needs is prepared before fork: after fork it only calls async-signal-safe functions
     * (the application may have threads). getgrouplist + setgroups is initgroups split at that line. */
    gid_t groups[256];
    int group_count = (int)(sizeof groups / sizeof groups[0]);
    if (getgrouplist(account->pw_name, account->pw_gid, groups, &group_count) < 0) {
        pam_syslog(pamh, LOG_ERR, "user %s is in too many groups", account->pw_name);
        return -1;
    }
    char home[PATH_MAX + 8], user[256 + 8], logname[256 + 12], runtime_variable[PATH_MAX + 20], bus[1024];
    snprintf(home, sizeof home, "HOME=%s", account->pw_dir);
    snprintf(user, sizeof user, "USER=%s", account->pw_name);
    snprintf(logname, sizeof logname, "LOGNAME=%s", account->pw_name);
    snprintf(runtime_variable, sizeof runtime_variable, "XDG_RUNTIME_DIR=%s", runtime);
    char *environment[7] = {home, user, logname, "PATH=/usr/local/bin:/usr/bin:/bin", runtime_variable, NULL, NULL};
    const char *session_bus = pam_getenv(pamh, "DBUS_SESSION_BUS_ADDRESS");
    if (session_bus != NULL && session_bus[0] != '\0' &&
        snprintf(bus, sizeof bus, "DBUS_SESSION_BUS_ADDRESS=%s", session_bus) < (int)sizeof bus) {
        environment[5] = bus;
    }
    char *arguments[4] = {(char *)options->latchkey, (char *)command, (char *)flag, NULL};
    int max_descriptor = (int)sysconf(_SC_OPEN_MAX);
    if (max_descriptor < 0 || max_descriptor > 65536) max_descriptor = 65536;

    /* Standard input is one end of a socket pair, so that writing to a child that already exited is an error
     * (MSG_NOSIGNAL), never a SIGPIPE in the application. */
    int input_pair[2], error_pipe[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input_pair) != 0) {
        pam_syslog(pamh, LOG_ERR, "socketpair: %m");
        return -1;
    }
    if (pipe2(error_pipe, O_CLOEXEC) != 0) {
        pam_syslog(pamh, LOG_ERR, "pipe: %m");
        close(input_pair[0]);
        close(input_pair[1]);
        return -1;
    }
    /* waitpid needs SIGCHLD not ignored (an application may ignore it); restored below. */
    struct sigaction default_child = {.sa_handler = SIG_DFL}, saved_child;
    sigemptyset(&default_child.sa_mask);
    sigaction(SIGCHLD, &default_child, &saved_child);

    pid_t child = fork();
    if (child == 0) {
        if (dup2(input_pair[1], 0) < 0 || dup2(error_pipe[1], 2) < 0) _exit(126);
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, 1) < 0) _exit(126);
#ifdef SYS_close_range
        if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
#endif
            for (int descriptor = 3; descriptor < max_descriptor; descriptor++) close(descriptor);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        struct sigaction default_action = {.sa_handler = SIG_DFL};
        sigemptyset(&default_action.sa_mask);
        for (int signal = 1; signal < NSIG; signal++) {
            if (signal != SIGKILL && signal != SIGSTOP) sigaction(signal, &default_action, NULL);
        }
        uid_t uid = account->pw_uid;
        gid_t gid = account->pw_gid;
        if (geteuid() == 0) {
            /* For good: real, effective and saved ids, then checked, including that root cannot come back. */
            if (setgroups((size_t)group_count, groups) != 0) _exit(126);
            if (setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) _exit(126);
        }
        uid_t real, effective, saved;
        gid_t real_group, effective_group, saved_group;
        if (getresuid(&real, &effective, &saved) != 0 || real != uid || effective != uid || saved != uid) _exit(126);
        if (getresgid(&real_group, &effective_group, &saved_group) != 0 || real_group != gid ||
            effective_group != gid || saved_group != gid) {
            _exit(126);
        }
        if (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0)) _exit(126);
        if (chdir(account->pw_dir) != 0 && chdir("/") != 0) _exit(126);
        execve(options->latchkey, arguments, environment);
        _exit(127);
    }
    close(input_pair[1]);
    close(error_pipe[1]);
    if (child < 0) {
        pam_syslog(pamh, LOG_ERR, "fork: %m");
        close(input_pair[0]);
        close(error_pipe[0]);
        sigaction(SIGCHLD, &saved_child, NULL);
        return -1;
    }
    size_t written = 0;
    while (written < length) {
        ssize_t sent = send(input_pair[0], input + written, length - written, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) break;
        written += (size_t)sent;
    }
    close(input_pair[0]);

    /* Wait for the exit, reading standard error, until the deadline; then kill. A pidfd wakes the poll at the
     * exit (the agent latchkey may start does not hold the pipe); without one (Linux < 5.3) the poll wakes every
     * 50 ms to ask. */
    int process = -1;
#ifdef SYS_pidfd_open
    process = (int)syscall(SYS_pidfd_open, child, 0);
#endif
    long long deadline = now_ms() + (long long)options->timeout * 1000;
    size_t kept = 0;
    int status = 0, exited = 0, error_open = 1;
    char buffer[512];
    while (!exited) {
        long long remaining = deadline - now_ms();
        if (remaining <= 0) break;
        struct pollfd watched[2] = {{.fd = error_open ? error_pipe[0] : -1, .events = POLLIN},
                                    {.fd = process, .events = POLLIN}};
        int wait_ms = (int)(remaining < 60000 ? remaining : 60000);
        if (process < 0 && wait_ms > 50) wait_ms = 50;
        int ready = poll(watched, 2, wait_ms);
        if (ready < 0 && errno != EINTR) break;
        if (ready > 0 && watched[0].revents != 0) {
            ssize_t count = read(error_pipe[0], buffer, sizeof buffer);
            if (count > 0) {
                keep_message(message, message_size, &kept, buffer, count);
            } else if (count == 0 || errno != EINTR) {
                error_open = 0;
            }
        }
        pid_t reaped = waitpid(child, &status, WNOHANG);
        if (reaped == child || (reaped < 0 && errno != EINTR)) exited = reaped == child ? 1 : -1;
    }
    if (!exited) {
        kill(child, SIGKILL);
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        pam_syslog(pamh, LOG_ERR, "latchkey %s did not finish within %d s for user %s: killed", command,
                   options->timeout, account->pw_name);
    }
    /* What is left in the pipe after the exit. */
    if (error_open) {
        fcntl(error_pipe[0], F_SETFL, O_NONBLOCK);
        ssize_t count;
        while ((count = read(error_pipe[0], buffer, sizeof buffer)) > 0) {
            keep_message(message, message_size, &kept, buffer, count);
        }
    }
    while (kept > 0 && message[kept - 1] == ' ') message[--kept] = '\0';
    if (process >= 0) close(process);
    close(error_pipe[0]);
    sigaction(SIGCHLD, &saved_child, NULL);
    if (exited != 1) return -1;
    if (WIFEXITED(status)) {
        if (WEXITSTATUS(status) == 126) {
            pam_syslog(pamh, LOG_ERR, "could not become user %s to run %s", account->pw_name, options->latchkey);
        } else if (WEXITSTATUS(status) == 127) {
            pam_syslog(pamh, LOG_ERR, "cannot run %s (install latchkey, or give latchkey=PATH)", options->latchkey);
        }
        return WEXITSTATUS(status);
    }
    return -1;
}

/* Runs `latchkey pam-unlock [flag]` with `password`; logs the outcome. Returns whether it unlocked. */
static int unlock(pam_handle_t *pamh, const struct options *options, const struct passwd *account,
                  const char *runtime, const char *flag, const char *password) {
    char message[1024];
    int status =
        run_latchkey(pamh, options, account, runtime, "pam-unlock", flag, password, strlen(password), message,
                     sizeof message);
    if (status == 0) {
        pam_syslog(pamh, LOG_INFO, "unlocked the keychain of user %s", account->pw_name);
        return 1;
    }
    if (status > 0 && status != 126 && status != 127) {
        pam_syslog(pamh, LOG_NOTICE, "did not unlock the keychain of user %s: %s", account->pw_name, message);
    }
    return 0;
}

PAM_EXPORT int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)flags;
    struct options options;
    parse_options(pamh, argc, argv, &options);
    const void *item = NULL;
    if (pam_get_item(pamh, PAM_AUTHTOK, &item) != PAM_SUCCESS || item == NULL || ((const char *)item)[0] == '\0') {
        return PAM_IGNORE; /* no password (fingerprint, a token): the keychain stays locked */
    }
    char *copy = strdup(item);
    if (copy == NULL || pam_set_data(pamh, DATA_PASSWORD, copy, forget_password) != PAM_SUCCESS) {
        forget_password(pamh, copy, 0);
        pam_syslog(pamh, LOG_ERR, "cannot keep the password for the session");
        return PAM_IGNORE;
    }
    struct passwd account, *found;
    char storage[4096], runtime[PATH_MAX];
    if ((found = pam_user(pamh, &account, storage, sizeof storage)) == NULL) return PAM_IGNORE;
    runtime_directory(pamh, &options, found, runtime, sizeof runtime);
    /* A running agent (a screen unlock, another session of the user) is unlocked now: only a keychain that
     * exists, so that a mistyped password the next module refuses never creates one. */
    if (agent_socket_exists(runtime) && unlock(pamh, &options, found, runtime, "--if-running", copy)) {
        int *flag = malloc(sizeof *flag);
        if (flag != NULL && pam_set_data(pamh, DATA_UNLOCKED, flag, forget_flag) != PAM_SUCCESS) free(flag);
    }
    return PAM_IGNORE;
}

PAM_EXPORT int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_IGNORE;
}

PAM_EXPORT int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)flags;
    struct options options;
    parse_options(pamh, argc, argv, &options);
    const void *password = NULL, *unlocked = NULL;
    if (pam_get_data(pamh, DATA_PASSWORD, &password) != PAM_SUCCESS || password == NULL) {
        return PAM_SUCCESS; /* no password at auth: the first client's prompt unlocks the keychain */
    }
    if (pam_get_data(pamh, DATA_UNLOCKED, &unlocked) != PAM_SUCCESS || unlocked == NULL) {
        struct passwd account, *found;
        char storage[4096], runtime[PATH_MAX];
        if ((found = pam_user(pamh, &account, storage, sizeof storage)) != NULL) {
            runtime_directory(pamh, &options, found, runtime, sizeof runtime);
            unlock(pamh, &options, found, runtime, NULL, password);
        }
    }
    /* Used: replaced by nothing, which zeroes and frees it now rather than at pam_end. */
    pam_set_data(pamh, DATA_PASSWORD, NULL, NULL);
    return PAM_SUCCESS;
}

PAM_EXPORT int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_SUCCESS;
}

PAM_EXPORT int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    if (!(flags & PAM_UPDATE_AUTHTOK)) return PAM_SUCCESS; /* PAM_PRELIM_CHECK: nothing to check */
    struct options options;
    parse_options(pamh, argc, argv, &options);
    const void *new_item = NULL, *old_item = NULL;
    if (pam_get_item(pamh, PAM_AUTHTOK, &new_item) != PAM_SUCCESS || new_item == NULL ||
        ((const char *)new_item)[0] == '\0') {
        return PAM_SUCCESS;
    }
    struct passwd account, *found;
    char storage[4096], runtime[PATH_MAX];
    if ((found = pam_user(pamh, &account, storage, sizeof storage)) == NULL) return PAM_SUCCESS;
    char *asked = NULL;
    pam_get_item(pamh, PAM_OLDAUTHTOK, &old_item);
    if (old_item == NULL || ((const char *)old_item)[0] == '\0') {
        /* root changing a password is not asked for the old one by pam_unix; the keychain needs it. */
        if (flags & PAM_SILENT) return PAM_SUCCESS;
        if (pam_prompt(pamh, PAM_PROMPT_ECHO_OFF, &asked,
                       "Current password of %s's keychain (empty: leave the keychain as it is): ",
                       found->pw_name) != PAM_SUCCESS || asked == NULL || asked[0] == '\0') {
            if (asked != NULL) forget_password(pamh, asked, 0);
            return PAM_SUCCESS;
        }
        old_item = asked;
    }
    const char *old_password = old_item, *new_password = new_item;
    size_t old_length = strlen(old_password), new_length = strlen(new_password);
    size_t length = old_length + 1 + new_length;
    char *input = malloc(length + 1);
    if (input == NULL) {
        if (asked != NULL) forget_password(pamh, asked, 0);
        return PAM_SUCCESS;
    }
    memcpy(input, old_password, old_length);
    input[old_length] = '\0';
    memcpy(input + old_length + 1, new_password, new_length);
    input[length] = '\0';
    runtime_directory(pamh, &options, found, runtime, sizeof runtime);
    char message[1024];
    int status = run_latchkey(pamh, &options, found, runtime, "pam-passwd", NULL, input, length, message,
                              sizeof message);
    explicit_bzero(input, length + 1);
    free(input);
    if (asked != NULL) forget_password(pamh, asked, 0);
    if (status == 0) {
        pam_syslog(pamh, LOG_INFO, "changed the keychain passphrase of user %s", found->pw_name);
    } else if (status > 0 && status != 126 && status != 127) {
        pam_syslog(pamh, LOG_NOTICE, "did not change the keychain passphrase of user %s: %s", found->pw_name,
                   message);
        if (!(flags & PAM_SILENT)) pam_prompt(pamh, PAM_TEXT_INFO, NULL, "%s", message);
    }
    return PAM_SUCCESS;
}
