#ifndef VPS_HTTP_H
#define VPS_HTTP_H
/* A small non-variadic C API over libmicrohttpd for Swift.

   Each request passes two gates:
   1. `admit`, on the polling thread as soon as the headers are in and before any body byte is
      buffered: the application answers at once (401, 413, 429, ...) or accepts with a body limit
      and a ticket (released through `finished` when the request ends, whatever happens).
   2. `handle`, on the polling thread once the body is complete: the application must not block;
      it answers now or later, from any thread, by calling `vps_http_complete` exactly once. Until
      then the connection is suspended, so polling threads never wait for application work.

   The shim enforces the admitted body limit, a body deadline (the whole body must arrive within
   `body_timeout_seconds` of the headers, however slowly it trickles), total and per-IP connection
   limits and the idle timeout. */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vps_http_daemon vps_http_daemon;
/* One request in flight between `handle` and `vps_http_complete`. */
typedef struct vps_http_exchange vps_http_exchange;

typedef struct {
    const char *method;
    /* The request target exactly as sent (path and query, still percent-encoded). */
    const char *target;
    const char *const *header_names;
    const char *const *header_values;
    size_t header_count;
    /* The body: NULL in `admit`. In `handle` it is malloc'd and owned by the application, which
       must free() it. */
    uint8_t *body;
    size_t body_length;
    const char *client_address;
    /* In `handle`: the ticket the request was admitted with (0 in `admit`). */
    int64_t ticket;
} vps_http_request;

typedef struct {
    int status;
    /* malloc'd by the application, freed by the shim. */
    uint8_t *body;
    size_t body_length;
    /* malloc'd "Name: value\n" lines (including Content-Type), freed by the shim; may be NULL. */
    char *headers;
} vps_http_response;

typedef struct {
    /* 1: read the body (at most max_body bytes); 0: send `response` now and close. */
    int accept;
    size_t max_body;
    /* Handed back to `finished` when the request ends (accepted requests only). */
    int64_t ticket;
    vps_http_response response;
} vps_http_admission;

typedef void (*vps_http_admit_fn)(void *context, const vps_http_request *request, vps_http_admission *admission);
typedef void (*vps_http_handle_fn)(void *context, const vps_http_request *request, vps_http_exchange *exchange);
typedef void (*vps_http_finished_fn)(void *context, int64_t ticket);

typedef struct {
    unsigned threads;
    unsigned idle_timeout_seconds;
    unsigned body_timeout_seconds;
    unsigned max_connections;
    unsigned max_connections_per_ip;
} vps_http_limits;

/* Starts a daemon on host:port (port 0 picks a free one). Returns NULL and fills error on failure. */
vps_http_daemon *vps_http_start(const char *host, uint16_t port, vps_http_limits limits, vps_http_admit_fn admit,
                                vps_http_handle_fn handle, vps_http_finished_fn finished, void *context,
                                char *error, size_t error_length);

/* Answers an exchange; thread-safe; exactly once per exchange. Takes ownership of the buffers. */
void vps_http_complete(vps_http_exchange *exchange, vps_http_response response);

/* The bound port. */
uint16_t vps_http_port(const vps_http_daemon *daemon);

/* Requests handed to the application and not yet answered. */
size_t vps_http_pending(vps_http_daemon *daemon);

/* Stops accepting connections (in-flight requests continue). */
void vps_http_quiesce(vps_http_daemon *daemon);

/* Stops the daemon: waits up to grace_ms for pending exchanges to be answered, answers the rest
   with 503, closes every connection and frees the daemon. */
void vps_http_stop(vps_http_daemon *daemon, unsigned grace_ms);

#ifdef __cplusplus
}
#endif
#endif
