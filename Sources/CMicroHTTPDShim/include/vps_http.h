#ifndef VPS_HTTP_H
#define VPS_HTTP_H
/* A small non-variadic C API over libmicrohttpd for Swift: the daemon accumulates each request
   (headers, query arguments, body up to a limit) and calls one handler per complete request on a
   worker thread of its pool. */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vps_http_daemon vps_http_daemon;

typedef struct {
    const char *method;
    const char *url;
    const char *const *header_names;
    const char *const *header_values;
    size_t header_count;
    const char *const *query_names;
    const char *const *query_values;
    size_t query_count;
    const uint8_t *body;
    size_t body_length;
    const char *client_address;
} vps_http_request;

typedef struct {
    int status;
    /* malloc'd by the handler, freed by the daemon. */
    uint8_t *body;
    size_t body_length;
    /* malloc'd "Name: value\n" lines (including Content-Type), freed by the daemon; may be NULL. */
    char *headers;
} vps_http_response;

typedef void (*vps_http_handler)(void *context, const vps_http_request *request, vps_http_response *response);

/* Starts a daemon on host:port (port 0 picks a free one). Returns NULL and fills error on failure. */
vps_http_daemon *vps_http_start(const char *host, uint16_t port, unsigned threads, unsigned timeout_seconds,
                                size_t max_body_bytes, vps_http_handler handler, void *context, char *error,
                                size_t error_length);

/* The bound port. */
uint16_t vps_http_port(const vps_http_daemon *daemon);

/* Stops accepting, lets in-flight requests finish, frees the daemon. */
void vps_http_stop(vps_http_daemon *daemon);

#ifdef __cplusplus
}
#endif
#endif
