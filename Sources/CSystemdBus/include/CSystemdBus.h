// systemd's sd-bus (Debian: libsystemd-dev for the headers), the D-Bus implementation the Secret Service speaks
// through. Only sd-bus's non-variadic calls are used from Swift (append/read one value, open/enter containers).
//
// The library is not linked: lazy.c defines each function used with sd-bus's own prototype and binds it to
// libsystemd.so.0 with dlopen on first use. Linking it (and the libraries it pulls in) cost every `latchkey`
// process about 1 ms of start-up, for a service only `latchkey agent --secret-service` runs.
#include <systemd/sd-bus.h>
// eventfd wakes the bus thread from another thread (Glibc's Swift module does not export it).
#include <sys/eventfd.h>

/// NULL when libsystemd.so.0 is loaded (loading it on the first call), else why it could not be loaded.
const char *latchkey_systemd_load_error(void);
