// Binds the sd-bus functions Latchkey uses to libsystemd.so.0 on first use (see include/CSystemdBus.h).
// Each definition has the prototype declared in include/CSystemdBus.h (sd-bus's own); a function the
// library lacks answers -ENOSYS (or NULL), as sd-bus reports any other failure.
#include "CSystemdBus.h"
#include "CLatchkeyLazy.h"

#include <errno.h>
#include <stddef.h>

static struct latchkey_lazy_library library = LATCHKEY_LAZY_LIBRARY("libsystemd.so.0");

const char *latchkey_systemd_load_error(void) { return latchkey_lazy_load_error(&library); }

LATCHKEY_LAZY(library, int, sd_bus_new, (sd_bus **ret), (ret), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_set_address, (sd_bus *bus, const char *address), (bus, address), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_set_bus_client, (sd_bus *bus, int b), (bus, b), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_start, (sd_bus *bus), (bus), -ENOSYS)
LATCHKEY_LAZY(library, sd_bus *, sd_bus_flush_close_unref, (sd_bus *bus), (bus), NULL)
LATCHKEY_LAZY(library, int, sd_bus_request_name, (sd_bus *bus, const char *name, uint64_t flags), (bus, name, flags), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_add_fallback,
     (sd_bus *bus, sd_bus_slot **slot, const char *prefix, sd_bus_message_handler_t callback, void *userdata),
     (bus, slot, prefix, callback, userdata), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_add_match,
     (sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback, void *userdata),
     (bus, slot, match, callback, userdata), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_get_events, (sd_bus *bus), (bus), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_get_fd, (sd_bus *bus), (bus), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_get_timeout, (sd_bus *bus, uint64_t *timeout_usec), (bus, timeout_usec), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_process, (sd_bus *bus, sd_bus_message **r), (bus, r), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_wait, (sd_bus *bus, uint64_t timeout_usec), (bus, timeout_usec), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_send, (sd_bus *bus, sd_bus_message *m, uint64_t *cookie), (bus, m, cookie), -ENOSYS)
LATCHKEY_LAZY_VOID(library, sd_bus_error_free, (sd_bus_error *e), (e))
LATCHKEY_LAZY(library, int, sd_bus_error_set, (sd_bus_error *e, const char *name, const char *message), (e, name, message), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_reply_method_error, (sd_bus_message *call, const sd_bus_error *e), (call, e), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_message_new_method_return, (sd_bus_message *call, sd_bus_message **m), (call, m), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_message_new_method_call,
     (sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface, const char *member),
     (bus, m, destination, path, interface, member), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_call,
     (sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply),
     (bus, m, usec, ret_error, reply), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_message_new_signal,
     (sd_bus *bus, sd_bus_message **m, const char *path, const char *interface, const char *member),
     (bus, m, path, interface, member), -ENOSYS)
LATCHKEY_LAZY(library, sd_bus_message *, sd_bus_message_unref, (sd_bus_message *m), (m), NULL)
LATCHKEY_LAZY(library, int, sd_bus_message_get_type, (sd_bus_message *m, uint8_t *type), (m, type), -ENOSYS)
LATCHKEY_LAZY(library, const char *, sd_bus_message_get_interface, (sd_bus_message *m), (m), NULL)
LATCHKEY_LAZY(library, const char *, sd_bus_message_get_member, (sd_bus_message *m), (m), NULL)
LATCHKEY_LAZY(library, const char *, sd_bus_message_get_path, (sd_bus_message *m), (m), NULL)
LATCHKEY_LAZY(library, const char *, sd_bus_message_get_sender, (sd_bus_message *m), (m), NULL)
LATCHKEY_LAZY(library, const char *, sd_bus_message_get_signature, (sd_bus_message *m, int complete), (m, complete), NULL)
LATCHKEY_LAZY(library, int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents), (m, type, contents),
     -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *p), (m, type, p), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_message_append_array, (sd_bus_message *m, char type, const void *ptr, size_t size),
     (m, type, ptr, size), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_message_read_array, (sd_bus_message *m, char type, const void **ptr, size_t *size),
     (m, type, ptr, size), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents),
     -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_message_close_container, (sd_bus_message *m), (m), -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_message_enter_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents),
     -ENOSYS)
LATCHKEY_LAZY(library, int, sd_bus_message_exit_container, (sd_bus_message *m), (m), -ENOSYS)
