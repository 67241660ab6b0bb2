#ifndef SNAPBOARD_CSNAPBOARDLWS_H
#define SNAPBOARD_CSNAPBOARDLWS_H

/* How Snapboard uses libwebsockets: contexts, client connections, the libev loop, and malloc_trim.
   The definitions, and why they are C, are in snapboard_lws.c. */

#include <libwebsockets.h>

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
    /* What each WebSocket connection allocates to receive into (0: libwebsockets' 4096), and the most
       one send() writes before libwebsockets buffers the rest (0: the receive buffer's size). */
    size_t rx_buffer_size;
    size_t tx_packet_size;
    /* Sets when an idle connection is pinged and when one that stays silent after the ping is dropped
       (may be NULL). */
    const lws_retry_bo_t *retry;
    /* A server: seconds a connection may take to finish its handshake (0: 10). */
    unsigned int handshake_timeout;
    /* A server: PEM certificate (chain) and private key, to serve https:// and wss:// only (both NULL:
       plain). */
    const char *tls_cert;
    const char *tls_key;
    /* A client: set up TLS for wss://, verifying servers against `tls_ca` (a PEM file; NULL: the
       system's trust store). */
    int client_tls;
    const char *tls_ca;
    /* On libev: give the context a libev loop of its own, made here and returned in `loop`, instead
       of letting libwebsockets make one. libwebsockets then attaches no SIGINT watcher to it, which libev
       allows on one loop of the process only: so several contexts can run in one process, each on its
       own thread (a sharded server). The loop is the caller's to break and destroy. */
    int own_loop;
    void *loop;
} snapboard_context_options;

/// A context with one protocol, "snapboard", on `*event_loop` (a `snapboard_event_loop`); when libev
/// cannot start (its plugin missing) the context is made on poll, and `*event_loop` says so. Sets
/// `o->loop` to the context's own libev loop, if it has one. NULL when libwebsockets refused.
struct lws_context *snapboard_create_context(snapboard_context_options *o, int *event_loop);

/// Ends every ev_run() of a libev `loop` (EVBREAK_ALL).
void snapboard_ev_break(void *loop);

/// Destroys a libev `loop` made for a context with `own_loop`, once the context is gone.
void snapboard_ev_loop_destroy(void *loop);

/// Hands an accepted socket to the context's server vhost, as if its own listener had accepted it: the
/// HTTP request and any upgrade follow as usual. False when libwebsockets refused it (it then closed `fd`).
int snapboard_adopt(struct lws_context *context, int fd);

/// The port the context's vhost listens on: the real one when it was asked for port 0; -1 without one.
int snapboard_listen_port(struct lws_context *context);

/// Starts a client connection to ws://host:port/path (wss:// when `tls`: 1 verifies the server's
/// certificate and its name, 2 the certificate only); `opaque` comes back from lws_get_opaque_user_data().
/// A `method` (such as "GET") makes it a plain HTTP request instead of a WebSocket upgrade.
struct lws *snapboard_client_connect(struct lws_context *context, const char *host, int port, const char *path,
                                     void *opaque, int tls, const char *method);

/// Reads what libwebsockets has of an HTTP client response into `buffer` (`LWS_PRE` bytes of headroom,
/// then `size`), which comes back through RECEIVE_CLIENT_HTTP_READ. Returns 0, or -1 to close.
int snapboard_http_client_read(struct lws *wsi, char *buffer, int size);

/// Hands the heap's free pages back to the system (glibc's malloc_trim, which Swift's Glibc module does
/// not export).
void snapboard_malloc_trim(void);

#endif
