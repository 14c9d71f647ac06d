#include "vps_http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vps_http_daemon {
    struct MHD_Daemon *mhd;
    vps_http_handler handler;
    void *context;
    size_t max_body;
    uint16_t port;
};

typedef struct {
    char **names;
    char **values;
    size_t count;
    size_t capacity;
} pairs;

typedef struct {
    uint8_t *body;
    size_t length;
    size_t capacity;
    int too_large;
} request_state;

static int pairs_add(pairs *p, const char *name, const char *value) {
    if (p->count == p->capacity) {
        size_t capacity = p->capacity ? p->capacity * 2 : 16;
        char **names = realloc(p->names, capacity * sizeof(char *));
        if (!names) return 0;
        p->names = names;
        char **values = realloc(p->values, capacity * sizeof(char *));
        if (!values) return 0;
        p->values = values;
        p->capacity = capacity;
    }
    p->names[p->count] = strdup(name ? name : "");
    p->values[p->count] = strdup(value ? value : "");
    p->count++;
    return 1;
}

static void pairs_free(pairs *p) {
    for (size_t i = 0; i < p->count; i++) {
        free(p->names[i]);
        free(p->values[i]);
    }
    free(p->names);
    free(p->values);
}

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    return pairs_add((pairs *)cls, key, value) ? MHD_YES : MHD_NO;
}

static enum MHD_Result respond(struct MHD_Connection *connection, int status, uint8_t *body, size_t length,
                               char *headers) {
    struct MHD_Response *response = body ? MHD_create_response_from_buffer(length, body, MHD_RESPMEM_MUST_FREE)
                                          : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!response) {
        free(body);
        free(headers);
        return MHD_NO;
    }
    if (headers) {
        char *line = headers;
        while (line && *line) {
            char *end = strchr(line, '\n');
            if (end) *end = 0;
            char *colon = strchr(line, ':');
            if (colon) {
                *colon = 0;
                const char *value = colon + 1;
                while (*value == ' ') value++;
                MHD_add_response_header(response, line, value);
            }
            line = end ? end + 1 : NULL;
        }
        free(headers);
    }
    enum MHD_Result result = MHD_queue_response(connection, (unsigned)status, response);
    MHD_destroy_response(response);
    return result;
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                      const char *version, const char *upload_data, size_t *upload_data_size,
                                      void **con_cls) {
    (void)version;
    vps_http_daemon *daemon = cls;
    request_state *state = *con_cls;
    if (!state) {
        state = calloc(1, sizeof(request_state));
        if (!state) return MHD_NO;
        *con_cls = state;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        if (!state->too_large) {
            if (state->length + *upload_data_size > daemon->max_body) {
                state->too_large = 1;
                free(state->body);
                state->body = NULL;
                state->length = 0;
            } else {
                if (state->length + *upload_data_size > state->capacity) {
                    size_t capacity = state->capacity ? state->capacity : 65536;
                    while (capacity < state->length + *upload_data_size) capacity *= 2;
                    uint8_t *body = realloc(state->body, capacity);
                    if (!body) return MHD_NO;
                    state->body = body;
                    state->capacity = capacity;
                }
                memcpy(state->body + state->length, upload_data, *upload_data_size);
                state->length += *upload_data_size;
            }
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (state->too_large) {
        const char *json = "{\"message\":\"Request body exceeds the limit\",\"code\":\"PAYLOAD_TOO_LARGE\"}";
        size_t length = strlen(json);
        uint8_t *body = malloc(length);
        if (!body) return MHD_NO;
        memcpy(body, json, length);
        return respond(connection, 413, body, length, strdup("Content-Type: application/json\nConnection: close\n"));
    }
    pairs headers = {0}, query = {0};
    MHD_get_connection_values(connection, MHD_HEADER_KIND, collect, &headers);
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, collect, &query);
    char address[64] = "";
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info && info->client_addr && info->client_addr->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)info->client_addr)->sin_addr, address, sizeof address);
    }
    vps_http_request request = {
        .method = method,
        .url = url,
        .header_names = (const char *const *)headers.names,
        .header_values = (const char *const *)headers.values,
        .header_count = headers.count,
        .query_names = (const char *const *)query.names,
        .query_values = (const char *const *)query.values,
        .query_count = query.count,
        .body = state->body,
        .body_length = state->length,
        .client_address = address,
    };
    vps_http_response response = {500, NULL, 0, NULL};
    daemon->handler(daemon->context, &request, &response);
    pairs_free(&headers);
    pairs_free(&query);
    return respond(connection, response.status, response.body, response.body_length, response.headers);
}

static void completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)connection;
    (void)toe;
    request_state *state = *con_cls;
    if (state) {
        free(state->body);
        free(state);
        *con_cls = NULL;
    }
}

vps_http_daemon *vps_http_start(const char *host, uint16_t port, unsigned threads, unsigned timeout_seconds,
                                size_t max_body_bytes, vps_http_handler handler, void *context, char *error,
                                size_t error_length) {
    vps_http_daemon *daemon = calloc(1, sizeof(vps_http_daemon));
    if (!daemon) {
        snprintf(error, error_length, "out of memory");
        return NULL;
    }
    daemon->handler = handler;
    daemon->context = context;
    daemon->max_body = max_body_bytes;
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    if (inet_pton(AF_INET, host, &address.sin_addr) != 1) {
        snprintf(error, error_length, "invalid IPv4 address '%s'", host);
        free(daemon);
        return NULL;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC;
    daemon->mhd = MHD_start_daemon(flags, port, NULL, NULL, access_handler, daemon, MHD_OPTION_SOCK_ADDR, &address,
                                   MHD_OPTION_THREAD_POOL_SIZE, threads < 1 ? 1u : threads,
                                   MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds, MHD_OPTION_NOTIFY_COMPLETED,
                                   completed, NULL, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 * 1024),
                                   MHD_OPTION_END);
    if (!daemon->mhd) {
        snprintf(error, error_length, "cannot listen on %s:%u", host, (unsigned)port);
        free(daemon);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon->mhd, MHD_DAEMON_INFO_BIND_PORT);
    daemon->port = info ? info->port : port;
    return daemon;
}

uint16_t vps_http_port(const vps_http_daemon *daemon) { return daemon->port; }

void vps_http_stop(vps_http_daemon *daemon) {
    if (!daemon) return;
    MHD_quiesce_daemon(daemon->mhd);
    MHD_stop_daemon(daemon->mhd);
    free(daemon);
}
