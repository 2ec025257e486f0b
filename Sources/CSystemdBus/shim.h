// systemd's sd-bus (Debian: libsystemd-dev), the D-Bus implementation the Secret Service speaks through.
// Only sd-bus's non-variadic calls are used from Swift (append/read one value, open/enter containers).
#include <systemd/sd-bus.h>
