#ifndef SNAPBOARD_CLIBWEBSOCKETS_SHIM_H
#define SNAPBOARD_CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>
#include <dlfcn.h>
#include <malloc.h>
#include <string.h>

/// The headroom libwebsockets needs before every payload handed to lws_write().
/// LWS_PRE is a macro expression, which Swift cannot import, so it is re-exported here.
static const size_t snapboard_lws_pre = LWS_PRE;

/// lwsl_* are variadic macros; Swift can call these fixed-arity wrappers instead.
static inline void snapboard_lws_log_err(const char *message) { lwsl_err("%s\n", message); }
static inline void snapboard_lws_log_warn(const char *message) { lwsl_warn("%s\n", message); }
static inline void snapboard_lws_log_notice(const char *message) { lwsl_notice("%s\n", message); }
static inline void snapboard_lws_log_info(const char *message) { lwsl_info("%s\n", message); }

/// A timer whose callback can find its owner: `sul` comes first, so the callback's pointer is the struct's.
typedef struct snapboard_timer {
    lws_sorted_usec_list_t sul;
    void *owner;
} snapboard_timer;

/// Which event loop a context runs on: libwebsockets' own poll() loop, or libev (epoll on Linux),
/// loaded from Debian's libwebsockets-evlib-ev plugin.
enum snapboard_event_loop { SNAPBOARD_LOOP_POLL = 0, SNAPBOARD_LOOP_LIBEV = 1 };

/// How a context is made: a server vhost on `iface:port` (`CONTEXT_PORT_NO_LISTEN_SERVER`: one that listens
/// nowhere and serves the sockets handed to it), or a client context that listens nowhere.
/// Every pointer must outlive the context (libwebsockets keeps some of them).
typedef struct snapboard_context_options {
    struct lws_protocols *protocols;    /* two entries, the second the terminator */
    lws_callback_function *callback;
    void *user;
    const char *iface;
    int port;
    int server;
    size_t rx_buffer_size;
    /* Sets when an idle connection is pinged and when one that stays silent after the ping is dropped
       (may be NULL). */
    const lws_retry_bo_t *retry;
    /* A server: seconds a connection may take to finish its handshake (0: libwebsockets' own 5). */
    unsigned int handshake_timeout;
    /* A server: PEM certificate (chain) and private key, to serve https:// and wss:// only (both NULL:
       plain). */
    const char *tls_cert;
    const char *tls_key;
    /* A client: set up TLS for wss://, verifying servers against `tls_ca` (a PEM file; NULL: the
       system's trust store). */
    int client_tls;
    const char *tls_ca;
    /* On libev: give the context a libev loop of its own, made here and returned in `own_loop`, instead
       of letting libwebsockets make one. libwebsockets then attaches no SIGINT watcher to it, which libev
       allows on one loop of the process only: so several contexts can run in one process, each on its
       own thread (a sharded server). The loop is the caller's to break and destroy. */
    int own_loop;
    void *loop;
} snapboard_context_options;

/// A function of the libev that libwebsockets' plugin loaded (libev's headers are not needed).
static inline void *snapboard_libev(const char *name)
{
    void *lib = dlopen("libev.so.4", RTLD_LAZY | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libev.so.4", RTLD_LAZY);
    return lib ? dlsym(lib, name) : NULL;
}

/// Ends every ev_run() of `loop` (EVBREAK_ALL).
static inline void snapboard_ev_break(void *loop)
{
    void (*ev_break)(void *, int) = (void (*)(void *, int))snapboard_libev("ev_break");
    if (ev_break) ev_break(loop, 2);
}

static inline void snapboard_ev_loop_destroy(void *loop)
{
    void (*destroy)(void *) = (void (*)(void *))snapboard_libev("ev_loop_destroy");
    if (destroy) destroy(loop);
}

/// One protocol, "snapboard", at index 0 so it handles plain HTTP and upgrades without a subprotocol.
/// `event_loop` asks for a loop.
static inline struct lws_context *snapboard_create_context_on(const snapboard_context_options *o, int event_loop)
{
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    memset(o->protocols, 0, 2 * sizeof *o->protocols);
    o->protocols[0].name = "snapboard";
    o->protocols[0].callback = o->callback;
    o->protocols[0].rx_buffer_size = o->rx_buffer_size;
    info.protocols = o->protocols;
    info.user = o->user;
    info.gid = -1;
    info.uid = -1;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
    info.retry_and_idle_policy = o->retry;
    void *loops[1] = { NULL };
    if (event_loop == SNAPBOARD_LOOP_LIBEV) {
        info.options |= LWS_SERVER_OPTION_LIBEV;
        if (o->own_loop) {
            /* libev is loaded with the plugin, which only the context's creation loads: load it first. */
            void *(*ev_loop_new)(unsigned int) = (void *(*)(unsigned int))snapboard_libev("ev_loop_new");
            loops[0] = ev_loop_new ? ev_loop_new(0) : NULL;
            if (!loops[0]) return NULL;
            info.foreign_loops = loops;
        }
    }
    if (o->server) {
        info.iface = o->iface;
        info.port = o->port;
        info.vhost_name = "snapboard";
        /* The handshake's deadline: the TLS and transport one, and the one for a request's headers. */
        info.timeout_secs = o->handshake_timeout ? o->handshake_timeout : 10;
        info.timeout_secs_ah_idle = (int)info.timeout_secs;
        /* Room for a request line and headers of 16 KiB (the default is 4 KiB), so that long URLs and
           headers reach Snapboard's own checks and get an HTTP 400 instead of a dropped connection. */
        info.max_http_header_data = 16384;
        /* Text frames must be UTF-8 (RFC 6455 §8.1): others are closed with 1007 as they arrive. */
        info.options |= LWS_SERVER_OPTION_VALIDATE_UTF8;
        if (o->tls_cert && o->tls_key) {
            info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
            info.ssl_cert_filepath = o->tls_cert;
            info.ssl_private_key_filepath = o->tls_key;
            /* HTTP/1.1 only: over HTTP/2 the Host header becomes :authority, and WebSockets would need
               RFC 8441's extended CONNECT; one framing keeps every check the same over TLS and plain. */
            info.alpn = "http/1.1";
        }
    } else {
        info.port = CONTEXT_PORT_NO_LISTEN;
        if (o->client_tls) {
            info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
            info.client_ssl_ca_filepath = o->tls_ca;
        }
    }
    struct lws_context *context = lws_create_context(&info);
    if (loops[0] && !context) snapboard_ev_loop_destroy(loops[0]);
    ((snapboard_context_options *)o)->loop = context ? loops[0] : NULL;
    return context;
}

/// A context on `*event_loop`; when libev cannot start (its plugin missing) the context is made on
/// poll, and `*event_loop` says so.
static inline struct lws_context *snapboard_create_context(const snapboard_context_options *o, int *event_loop)
{
    struct lws_context *context = snapboard_create_context_on(o, *event_loop);
    if (!context && *event_loop != SNAPBOARD_LOOP_POLL) {
        *event_loop = SNAPBOARD_LOOP_POLL;
        context = snapboard_create_context_on(o, *event_loop);
    }
    return context;
}

/// Hands an accepted socket to the context's server vhost, as if its own listener had accepted it: the
/// HTTP request and any upgrade follow as usual. False when libwebsockets refused it (it then closed `fd`).
static inline int snapboard_adopt(struct lws_context *context, int fd) {
    struct lws_vhost *vhost = lws_get_vhost_by_name(context, "snapboard");
    if (!vhost) return 0;
    return lws_adopt_socket_vhost(vhost, fd) != NULL;
}

/// The port the context's vhost listens on: the real one when it was asked for port 0.
static inline int snapboard_listen_port(struct lws_context *context) {
    struct lws_vhost *vhost = lws_get_vhost_by_name(context, "snapboard");
    return vhost ? lws_get_vhost_listen_port(vhost) : -1;
}

/// Starts a client connection to ws://host:port/path (wss:// when `tls`, verifying the server's
/// certificate and its name); `opaque` comes back from lws_get_opaque_user_data().
static inline struct lws *snapboard_client_connect(
    struct lws_context *context, const char *host, int port, const char *path, void *opaque, int tls, const char *method)
{
    struct lws_client_connect_info info;
    memset(&info, 0, sizeof info);
    info.context = context;
    info.address = host;
    info.port = port;
    info.path = path;
    info.host = host;
    /* No Origin: it is what browsers send, for the server's cross-site checks; a native client has none. */
    info.origin = NULL;
    info.protocol = NULL;
    info.local_protocol_name = "snapboard";
    info.ietf_version_or_minus_one = -1;
    info.opaque_user_data = opaque;
    /* tls: 0 plain, 1 TLS verified against the trust store and the host name, 2 TLS verified against the
       trust store only (a health check on 127.0.0.1 of a server whose certificate names its public host). */
    info.ssl_connection = tls ? LCCSCF_USE_SSL | (tls == 2 ? LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK : 0) : 0;
    /* A method makes it a plain HTTP request instead of a WebSocket upgrade. */
    info.method = method;
    return lws_client_connect_via_info(&info);
}

/// Reads what libwebsockets has of an HTTP client response into `buffer` (`LWS_PRE` bytes of headroom,
/// then `size`), which comes back through RECEIVE_CLIENT_HTTP_READ. Returns 0, or -1 to close.
static inline int snapboard_http_client_read(struct lws *wsi, char *buffer, int size)
{
    char *p = buffer + LWS_PRE;
    int len = size;
    return lws_http_client_read(wsi, &p, &len);
}

/// Hands the heap's free pages back to the system (glibc's malloc_trim, which Swift's Glibc module does
/// not export).
static inline void snapboard_malloc_trim(void) { malloc_trim(0); }

#endif
