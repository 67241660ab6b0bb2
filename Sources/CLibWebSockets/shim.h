#ifndef SNAPBOARD_CLIBWEBSOCKETS_SHIM_H
#define SNAPBOARD_CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>
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

/// One protocol, "snapboard", at index 0 so it handles plain HTTP and upgrades without a subprotocol.
/// `protocols` must outlive the context (two entries, the second the terminator). `*event_loop` asks for
/// a loop; when libev cannot start (its plugin missing) the context is made on poll, and `*event_loop`
/// says so.
/// `retry` (may be NULL) sets when an idle connection is pinged and when one that stays silent after the
/// ping is dropped; like `protocols`, it must outlive the context.
static inline struct lws_context *snapboard_create_context_on(
    struct lws_protocols *protocols, lws_callback_function *callback, void *user,
    const char *iface, int port, size_t rx_buffer_size, int server, int event_loop,
    const lws_retry_bo_t *retry)
{
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    memset(protocols, 0, 2 * sizeof *protocols);
    protocols[0].name = "snapboard";
    protocols[0].callback = callback;
    protocols[0].rx_buffer_size = rx_buffer_size;
    info.protocols = protocols;
    info.user = user;
    info.gid = -1;
    info.uid = -1;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
    info.retry_and_idle_policy = retry;
    if (event_loop == SNAPBOARD_LOOP_LIBEV) info.options |= LWS_SERVER_OPTION_LIBEV;
    if (server) {
        info.iface = iface;
        info.port = port;
        info.vhost_name = "snapboard";
        info.timeout_secs = 10;
        /* Room for a request line and headers of 16 KiB (the default is 4 KiB), so that long URLs and
           headers reach Snapboard's own checks and get an HTTP 400 instead of a dropped connection. */
        info.max_http_header_data = 16384;
    } else {
        info.port = CONTEXT_PORT_NO_LISTEN;
    }
    return lws_create_context(&info);
}

static inline struct lws_context *snapboard_create_context(
    struct lws_protocols *protocols, lws_callback_function *callback, void *user,
    const char *iface, int port, size_t rx_buffer_size, int server, int *event_loop,
    const lws_retry_bo_t *retry)
{
    struct lws_context *context = snapboard_create_context_on(
        protocols, callback, user, iface, port, rx_buffer_size, server, *event_loop, retry);
    if (!context && *event_loop != SNAPBOARD_LOOP_POLL) {
        *event_loop = SNAPBOARD_LOOP_POLL;
        context = snapboard_create_context_on(
            protocols, callback, user, iface, port, rx_buffer_size, server, *event_loop, retry);
    }
    return context;
}

/// The port the context's vhost listens on: the real one when it was asked for port 0.
static inline int snapboard_listen_port(struct lws_context *context) {
    struct lws_vhost *vhost = lws_get_vhost_by_name(context, "snapboard");
    return vhost ? lws_get_vhost_listen_port(vhost) : -1;
}

/// Starts a client connection to ws://host:port/path; `opaque` comes back from lws_get_opaque_user_data().
static inline struct lws *snapboard_client_connect(
    struct lws_context *context, const char *host, int port, const char *path, void *opaque)
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
    return lws_client_connect_via_info(&info);
}

#endif
