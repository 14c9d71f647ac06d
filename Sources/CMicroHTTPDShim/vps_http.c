#include "vps_http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Where a request is between the polling thread and the application. */
enum phase {
    PHASE_RECEIVING = 0, /* headers admitted (or not yet), body arriving */
    PHASE_DISPATCHING,   /* inside the application's `handle` */
    PHASE_SUSPENDED,     /* handed off; the connection waits for vps_http_complete */
    PHASE_READY,         /* answered by the application, not yet queued */
    PHASE_ANSWERED       /* response queued */
};

struct vps_http_daemon {
    struct MHD_Daemon *mhd;
    vps_http_admit_fn admit;
    vps_http_handle_fn handle;
    vps_http_finished_fn finished;
    void *context;
    unsigned idle_timeout;
    unsigned body_timeout;
    uint16_t port;
    int listen_fd;
    int stopped;
    /* Guards every exchange's phase, the pending list and the reference counts. */
    pthread_mutex_t lock;
    vps_http_exchange *pending;
    size_t pending_count;
    size_t app_refs;
};

struct vps_http_exchange {
    vps_http_daemon *daemon;
    struct MHD_Connection *connection;
    char *target;
    int phase;
    int admitted;
    int has_ticket;
    int64_t ticket;
    size_t max_body;
    uint8_t *body;
    size_t length;
    size_t capacity;
    double deadline;
    vps_http_response response;
    /* References: the connection's (until the request terminates) and the application's (from
       `handle` to `vps_http_complete`). */
    int mhd_ref;
    int app_ref;
    int in_list;
    vps_http_exchange *prev;
    vps_http_exchange *next;
};

typedef struct {
    char **names;
    char **values;
    size_t count;
    size_t capacity;
} pairs;

static double monotonic_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

static void free_response(vps_http_response *r) {
    free(r->body);
    free(r->headers);
    r->body = NULL;
    r->headers = NULL;
}

static enum MHD_Result respond(struct MHD_Connection *connection, vps_http_response r) {
    struct MHD_Response *response =
        r.body ? MHD_create_response_from_buffer(r.body_length, r.body, MHD_RESPMEM_MUST_FREE)
               : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!response) {
        free_response(&r);
        return MHD_NO;
    }
    if (r.headers) {
        char *line = r.headers;
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
        free(r.headers);
    }
    unsigned status = r.status >= 100 && r.status <= 999 ? (unsigned)r.status : 500u;
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

/* A fixed JSON error (the application is not involved: the shim's own limits). */
static vps_http_response canned(int status, const char *code, const char *message) {
    vps_http_response r = {status, NULL, 0, NULL};
    char text[256];
    int n = snprintf(text, sizeof text, "{\"code\":\"%s\",\"message\":\"%s\"}", code, message);
    if (n > 0 && (size_t)n < sizeof text) {
        r.body = malloc((size_t)n);
        if (r.body) {
            memcpy(r.body, text, (size_t)n);
            r.body_length = (size_t)n;
        }
    }
    r.headers = strdup(status == 503 ? "Content-Type: application/json\nRetry-After: 1\n"
                                     : "Content-Type: application/json\n");
    return r;
}

static void client_address(struct MHD_Connection *connection, char *out, size_t size) {
    out[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info && info->client_addr && info->client_addr->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)info->client_addr)->sin_addr, out, (socklen_t)size);
    }
}

/* Frees an exchange once neither the connection nor the application refers to it. Call unlocked. */
static void release(vps_http_exchange *x) {
    free(x->target);
    free(x->body);
    free_response(&x->response);
    free(x);
}

static void unlink_pending(vps_http_daemon *d, vps_http_exchange *x) {
    if (!x->in_list) return;
    if (x->prev) x->prev->next = x->next;
    else d->pending = x->next;
    if (x->next) x->next->prev = x->prev;
    x->prev = x->next = NULL;
    x->in_list = 0;
    d->pending_count--;
}

static void link_pending(vps_http_daemon *d, vps_http_exchange *x) {
    x->prev = NULL;
    x->next = d->pending;
    if (d->pending) d->pending->prev = x;
    d->pending = x;
    x->in_list = 1;
    d->pending_count++;
}

static vps_http_exchange *new_exchange(vps_http_daemon *d, struct MHD_Connection *connection, const char *uri) {
    vps_http_exchange *x = calloc(1, sizeof(vps_http_exchange));
    if (!x) return NULL;
    x->daemon = d;
    x->connection = connection;
    x->target = strdup(uri ? uri : "");
    x->mhd_ref = 1;
    if (!x->target) {
        free(x);
        return NULL;
    }
    return x;
}

/* MHD_OPTION_URI_LOG_CALLBACK: the first call per request, with the raw request target. */
static void *begin_request(void *cls, const char *uri, struct MHD_Connection *connection) {
    return new_exchange((vps_http_daemon *)cls, connection, uri);
}

/* Queues the stored answer of a ready exchange (call with the lock held; returns unlocked). */
static enum MHD_Result queue_ready(vps_http_daemon *d, vps_http_exchange *x) {
    vps_http_response r = x->response;
    memset(&x->response, 0, sizeof x->response);
    x->phase = PHASE_ANSWERED;
    unlink_pending(d, x);
    pthread_mutex_unlock(&d->lock);
    return respond(x->connection, r);
}

static void build_request(vps_http_exchange *x, const char *method, pairs *headers, char *address,
                          vps_http_request *request) {
    MHD_get_connection_values(x->connection, MHD_HEADER_KIND, collect, headers);
    client_address(x->connection, address, 64);
    request->method = method;
    request->target = x->target;
    request->header_names = (const char *const *)headers->names;
    request->header_values = (const char *const *)headers->values;
    request->header_count = headers->count;
    request->body = NULL;
    request->body_length = 0;
    request->client_address = address;
    request->ticket = x->ticket;
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                      const char *version, const char *upload_data, size_t *upload_data_size,
                                      void **con_cls) {
    (void)version;
    vps_http_daemon *d = cls;
    vps_http_exchange *x = *con_cls;
    if (!x) {
        x = new_exchange(d, connection, url);
        if (!x) return MHD_NO;
        *con_cls = x;
    }
    if (!x->admitted) {
        /* Headers only: the application decides before any body byte is buffered. */
        x->admitted = 1;
        pairs headers = {0};
        char address[64];
        vps_http_request request;
        build_request(x, method, &headers, address, &request);
        vps_http_admission admission;
        memset(&admission, 0, sizeof admission);
        admission.response.status = 500;
        d->admit(d->context, &request, &admission);
        pairs_free(&headers);
        if (!admission.accept) {
            x->phase = PHASE_ANSWERED;
            return respond(connection, admission.response);
        }
        free_response(&admission.response);
        x->has_ticket = 1;
        x->ticket = admission.ticket;
        x->max_body = admission.max_body;
        x->deadline = monotonic_seconds() + (double)d->body_timeout;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        double now = monotonic_seconds();
        /* The body deadline: a trickling client is cut off however often it sends a byte. */
        if (now > x->deadline) return MHD_NO;
        if (n > x->max_body - x->length) return MHD_NO;
        if (x->length + n > x->capacity) {
            size_t capacity = x->capacity ? x->capacity : 65536;
            while (capacity < x->length + n) capacity *= 2;
            if (capacity > x->max_body) capacity = x->max_body;
            uint8_t *body = realloc(x->body, capacity);
            if (!body) return MHD_NO;
            x->body = body;
            x->capacity = capacity;
        }
        memcpy(x->body + x->length, upload_data, n);
        x->length += n;
        double left = x->deadline - now;
        if (left < (double)d->idle_timeout) {
            MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)left + 1u);
        }
        return MHD_YES;
    }
    pthread_mutex_lock(&d->lock);
    if (x->phase == PHASE_READY) return queue_ready(d, x);
    if (x->phase != PHASE_RECEIVING) {
        pthread_mutex_unlock(&d->lock);
        return MHD_YES;
    }
    x->phase = PHASE_DISPATCHING;
    x->app_ref = 1;
    d->app_refs++;
    link_pending(d, x);
    pthread_mutex_unlock(&d->lock);

    pairs headers = {0};
    char address[64];
    vps_http_request request;
    build_request(x, method, &headers, address, &request);
    request.body = x->body;
    request.body_length = x->length;
    x->body = NULL;
    x->length = x->capacity = 0;
    d->handle(d->context, &request, x);
    pairs_free(&headers);

    pthread_mutex_lock(&d->lock);
    if (x->phase == PHASE_READY) return queue_ready(d, x);
    x->phase = PHASE_SUSPENDED;
    MHD_suspend_connection(connection);
    pthread_mutex_unlock(&d->lock);
    return MHD_YES;
}

void vps_http_complete(vps_http_exchange *x, vps_http_response response) {
    vps_http_daemon *d = x->daemon;
    pthread_mutex_lock(&d->lock);
    struct MHD_Connection *to_resume = NULL;
    if (x->phase == PHASE_DISPATCHING || x->phase == PHASE_SUSPENDED) {
        if (x->phase == PHASE_SUSPENDED) to_resume = x->connection;
        x->response = response;
        x->phase = PHASE_READY;
    } else {
        /* Already answered by the shim (shutdown): drop the late answer. */
        free_response(&response);
    }
    x->app_ref = 0;
    d->app_refs--;
    int gone = !x->mhd_ref;
    pthread_mutex_unlock(&d->lock);
    if (to_resume) MHD_resume_connection(to_resume);
    if (gone) release(x);
}

static void completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
    (void)connection;
    (void)toe;
    vps_http_daemon *d = cls;
    vps_http_exchange *x = *con_cls;
    *con_cls = NULL;
    if (!x) return;
    if (x->has_ticket) d->finished(d->context, x->ticket);
    pthread_mutex_lock(&d->lock);
    unlink_pending(d, x);
    x->mhd_ref = 0;
    int gone = !x->app_ref;
    pthread_mutex_unlock(&d->lock);
    if (gone) release(x);
}

vps_http_daemon *vps_http_start(const char *host, uint16_t port, vps_http_limits limits, vps_http_admit_fn admit,
                                vps_http_handle_fn handle, vps_http_finished_fn finished, void *context,
                                char *error, size_t error_length) {
    vps_http_daemon *d = calloc(1, sizeof(vps_http_daemon));
    if (!d) {
        snprintf(error, error_length, "out of memory");
        return NULL;
    }
    d->admit = admit;
    d->handle = handle;
    d->finished = finished;
    d->context = context;
    d->idle_timeout = limits.idle_timeout_seconds < 1 ? 1u : limits.idle_timeout_seconds;
    d->body_timeout = limits.body_timeout_seconds < 1 ? 1u : limits.body_timeout_seconds;
    d->listen_fd = -1;
    pthread_mutex_init(&d->lock, NULL);
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    if (inet_pton(AF_INET, host, &address.sin_addr) != 1) {
        snprintf(error, error_length, "invalid IPv4 address '%s'", host);
        pthread_mutex_destroy(&d->lock);
        free(d);
        return NULL;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    d->mhd = MHD_start_daemon(
        flags, port, NULL, NULL, access_handler, d, MHD_OPTION_SOCK_ADDR, &address, MHD_OPTION_THREAD_POOL_SIZE,
        limits.threads < 1 ? 1u : limits.threads, MHD_OPTION_CONNECTION_TIMEOUT, d->idle_timeout,
        MHD_OPTION_CONNECTION_LIMIT, limits.max_connections < 1 ? 1u : limits.max_connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.max_connections_per_ip, MHD_OPTION_URI_LOG_CALLBACK, begin_request,
        d, MHD_OPTION_NOTIFY_COMPLETED, completed, d, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(128 * 1024),
        MHD_OPTION_END);
    if (!d->mhd) {
        snprintf(error, error_length, "cannot listen on %s:%u", host, (unsigned)port);
        pthread_mutex_destroy(&d->lock);
        free(d);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d->mhd, MHD_DAEMON_INFO_BIND_PORT);
    d->port = info ? info->port : port;
    return d;
}

uint16_t vps_http_port(const vps_http_daemon *d) { return d->port; }

size_t vps_http_pending(vps_http_daemon *d) {
    pthread_mutex_lock(&d->lock);
    size_t n = d->pending_count;
    pthread_mutex_unlock(&d->lock);
    return n;
}

void vps_http_quiesce(vps_http_daemon *d) {
    if (d->listen_fd < 0) d->listen_fd = MHD_quiesce_daemon(d->mhd);
}

static void wait_pending(vps_http_daemon *d, unsigned ms) {
    double until = monotonic_seconds() + (double)ms / 1000.0;
    while (vps_http_pending(d) > 0 && monotonic_seconds() < until) usleep(2000);
}

void vps_http_stop(vps_http_daemon *d, unsigned grace_ms) {
    if (!d) return;
    vps_http_quiesce(d);
    wait_pending(d, grace_ms);
    /* Whatever the application has not answered gets 503; suspended connections must be resumed
       before the daemon stops. */
    pthread_mutex_lock(&d->lock);
    size_t count = 0;
    for (vps_http_exchange *x = d->pending; x; x = x->next) count++;
    struct MHD_Connection **resume = count ? calloc(count, sizeof(struct MHD_Connection *)) : NULL;
    size_t k = 0;
    for (vps_http_exchange *x = d->pending; x; x = x->next) {
        if (x->phase == PHASE_DISPATCHING || x->phase == PHASE_SUSPENDED) {
            if (x->phase == PHASE_SUSPENDED && resume) resume[k++] = x->connection;
            free_response(&x->response);
            x->response = canned(503, "ENGINE_TIMEOUT", "The server is shutting down");
            x->phase = PHASE_READY;
        }
    }
    pthread_mutex_unlock(&d->lock);
    for (size_t i = 0; i < k; i++) MHD_resume_connection(resume[i]);
    free(resume);
    wait_pending(d, 500);
    MHD_stop_daemon(d->mhd);
    if (d->listen_fd >= 0) close(d->listen_fd);
    pthread_mutex_lock(&d->lock);
    d->stopped = 1;
    size_t refs = d->app_refs;
    pthread_mutex_unlock(&d->lock);
    /* Exchanges still held by the application keep the daemon's lock alive (a late
       vps_http_complete must find it); the process is ending then, so the few bytes are not freed. */
    if (refs == 0) {
        pthread_mutex_destroy(&d->lock);
        free(d);
    }
}
