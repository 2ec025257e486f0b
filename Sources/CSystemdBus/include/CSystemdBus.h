// systemd's sd-bus, the D-Bus implementation the Secret Service speaks through (libsystemd.so.0, in every
// systemd-based distribution's libsystemd0 package).
//
// The library is neither linked nor needed to build: lazy.c binds each function below to libsystemd.so.0
// with dlopen on first use, and this header declares what Latchkey uses of sd-bus's stable C interface
// (the prototypes and types of <systemd/sd-bus.h>, systemd 246 and later), so that a build needs no
// libsystemd-dev. Linking it (and the libraries it pulls in) cost every `latchkey` process about 1 ms of
// start-up, for a service only `latchkey agent --secret-service` runs. Only non-variadic calls are used.
#ifndef LATCHKEY_CSYSTEMDBUS_H
#define LATCHKEY_CSYSTEMDBUS_H

#include <stddef.h>
#include <stdint.h>
// eventfd wakes the bus thread from another thread (Glibc's Swift module does not export it).
#include <sys/eventfd.h>

typedef struct sd_bus sd_bus;
typedef struct sd_bus_message sd_bus_message;
typedef struct sd_bus_slot sd_bus_slot;

typedef struct {
    const char *name;
    const char *message;
    int _need_free;
} sd_bus_error;

typedef int (*sd_bus_message_handler_t)(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);

enum {
    SD_BUS_MESSAGE_METHOD_CALL = 1,
    SD_BUS_MESSAGE_METHOD_RETURN = 2,
    SD_BUS_MESSAGE_METHOD_ERROR = 3,
    SD_BUS_MESSAGE_SIGNAL = 4,
};

/// NULL when libsystemd.so.0 is loaded (loading it on the first call), else why it could not be loaded.
const char *latchkey_systemd_load_error(void);

int sd_bus_new(sd_bus **ret);
int sd_bus_set_address(sd_bus *bus, const char *address);
int sd_bus_set_bus_client(sd_bus *bus, int b);
int sd_bus_start(sd_bus *bus);
sd_bus *sd_bus_flush_close_unref(sd_bus *bus);
int sd_bus_request_name(sd_bus *bus, const char *name, uint64_t flags);
int sd_bus_add_fallback(sd_bus *bus, sd_bus_slot **slot, const char *prefix, sd_bus_message_handler_t callback,
                        void *userdata);
int sd_bus_add_match(sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback,
                     void *userdata);
int sd_bus_get_events(sd_bus *bus);
int sd_bus_get_fd(sd_bus *bus);
int sd_bus_get_timeout(sd_bus *bus, uint64_t *timeout_usec);
int sd_bus_process(sd_bus *bus, sd_bus_message **r);
int sd_bus_wait(sd_bus *bus, uint64_t timeout_usec);
int sd_bus_send(sd_bus *bus, sd_bus_message *m, uint64_t *cookie);
void sd_bus_error_free(sd_bus_error *e);
int sd_bus_error_set(sd_bus_error *e, const char *name, const char *message);
int sd_bus_reply_method_error(sd_bus_message *call, const sd_bus_error *e);
int sd_bus_message_new_method_return(sd_bus_message *call, sd_bus_message **m);
int sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path,
                                   const char *interface, const char *member);
int sd_bus_call(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply);
int sd_bus_message_new_signal(sd_bus *bus, sd_bus_message **m, const char *path, const char *interface,
                              const char *member);
sd_bus_message *sd_bus_message_unref(sd_bus_message *m);
int sd_bus_message_get_type(sd_bus_message *m, uint8_t *type);
const char *sd_bus_message_get_interface(sd_bus_message *m);
const char *sd_bus_message_get_member(sd_bus_message *m);
const char *sd_bus_message_get_path(sd_bus_message *m);
const char *sd_bus_message_get_sender(sd_bus_message *m);
const char *sd_bus_message_get_signature(sd_bus_message *m, int complete);
int sd_bus_message_peek_type(sd_bus_message *m, char *type, const char **contents);
int sd_bus_message_append_basic(sd_bus_message *m, char type, const void *p);
int sd_bus_message_append_array(sd_bus_message *m, char type, const void *ptr, size_t size);
int sd_bus_message_read_basic(sd_bus_message *m, char type, void *p);
int sd_bus_message_read_array(sd_bus_message *m, char type, const void **ptr, size_t *size);
int sd_bus_message_open_container(sd_bus_message *m, char type, const char *contents);
int sd_bus_message_close_container(sd_bus_message *m);
int sd_bus_message_enter_container(sd_bus_message *m, char type, const char *contents);
int sd_bus_message_exit_container(sd_bus_message *m);

#endif
