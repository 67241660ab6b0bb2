/* Snapboard's use of libwebsockets, in C.
 *
 * Why C and not Swift:
 * - lws_context_creation_info and lws_client_connect_info are large structs whose fields, unions and
 *   padding depend on how libwebsockets was configured (LWS_WITH_TLS, LWS_ROLE_*, LWS_WITH_NETWORK and
 *   so on in lws_config.h). C fills them field by field from memset(0), by name, against the headers of
 *   the libwebsockets it is built with; Swift would see whatever layout the importer made of them and
 *   would have to spell out every field it leaves zero.
 * - Most of what is set here are macros (LWS_SERVER_OPTION_*, LCCSCF_*, LWS_PRE, CONTEXT_PORT_*), some
 *   of them expressions that Swift does not import.
 * - libev is reached through dlsym(), in the library that libwebsockets' libev plugin loaded: C calls
 *   those functions through a cast function pointer without needing libev's headers or linking it.
 * - malloc_trim() is glibc's, and Swift's Glibc module does not export it.
 * The Swift side (SnapboardLWS) keeps the policy that is not about a struct's layout: what a context is
 * for, keepalive times, and when to break a loop.
 */

#include "CSnapboardLWS.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* The server's TLS 1.2 ciphers and TLS 1.3 suites: Mozilla's "intermediate" set (version 5.7). */
#define SNAPBOARD_TLS12_CIPHERS "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:" \
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:" \
    "ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305"
#define SNAPBOARD_TLS13_CIPHERS "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

/* The fields filled below (retry_and_idle_policy, foreign_loops, opaque_user_data, timeout_secs_ah_idle)
   and lws_sorted_usec_list_t are libwebsockets 4.1's. */
_Static_assert(LWS_LIBRARY_VERSION_MAJOR > 4 || (LWS_LIBRARY_VERSION_MAJOR == 4 && LWS_LIBRARY_VERSION_MINOR >= 1),
               "Snapboard needs libwebsockets 4.1 or later");
/* The timer callback gets a pointer to `sul` and reads it as the whole snapboard_timer. */
_Static_assert(offsetof(snapboard_timer, sul) == 0, "snapboard_timer must begin with its lws_sorted_usec_list_t");
/* Swift's frames reserve 16 bytes of headroom (Frame.headroom); LWSContext checks this again at run time. */
_Static_assert(LWS_PRE <= 16, "libwebsockets needs more headroom than Snapboard's frames reserve");

/* libev's EVBREAK_ALL (libev's headers are not needed for the one constant). */
enum { SNAPBOARD_EVBREAK_ALL = 2 };

/* A function of the libev that libwebsockets' plugin loaded. */
static void *snapboard_libev(const char *name)
{
    void *lib = dlopen("libev.so.4", RTLD_LAZY | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libev.so.4", RTLD_LAZY);
    return lib ? dlsym(lib, name) : NULL;
}

void snapboard_ev_break(void *loop)
{
    void (*ev_break)(void *, int) = (void (*)(void *, int))snapboard_libev("ev_break");
    if (ev_break) ev_break(loop, SNAPBOARD_EVBREAK_ALL);
}

void snapboard_ev_loop_destroy(void *loop)
{
    void (*destroy)(void *) = (void (*)(void *))snapboard_libev("ev_loop_destroy");
    if (destroy) destroy(loop);
}

/* One protocol, "snapboard", at index 0 so it handles plain HTTP and upgrades without a subprotocol.
   `event_loop` asks for a loop. */
static struct lws_context *snapboard_create_context_on(snapboard_context_options *o, int event_loop)
{
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    memset(o->protocols, 0, 2 * sizeof *o->protocols);
    o->protocols[0].name = "snapboard";
    o->protocols[0].callback = o->callback;
    o->protocols[0].rx_buffer_size = o->rx_buffer_size;
    o->protocols[0].tx_packet_size = o->tx_packet_size;
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
        /* A request line libwebsockets cannot parse (a method it does not know, such as TRACE) becomes a
           raw socket of the same protocol, which answers it 405 with Allow, instead of a bare 403. So does
           plain HTTP sent to a TLS port, which is answered 400. */
        info.options |= LWS_SERVER_OPTION_FALLBACK_TO_APPLY_LISTEN_ACCEPT_CONFIG;
        info.listen_accept_role = "raw-skt";
        info.listen_accept_protocol = "snapboard";
        if (o->tls_cert && o->tls_key) {
            info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
            info.ssl_cert_filepath = o->tls_cert;
            info.ssl_private_key_filepath = o->tls_key;
            /* Mozilla's "intermediate" configuration (TLS 1.2 and 1.3, forward secrecy, AEAD only): no
               static-RSA key exchange and no CBC with SHA-1, which OpenSSL's defaults still offer. */
            info.ssl_cipher_list = SNAPBOARD_TLS12_CIPHERS;
            info.tls1_3_plus_cipher_list = SNAPBOARD_TLS13_CIPHERS;
            info.ssl_options_set = SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1;
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
    o->loop = context ? loops[0] : NULL;
    return context;
}

struct lws_context *snapboard_create_context(snapboard_context_options *o, int *event_loop)
{
    struct lws_context *context = snapboard_create_context_on(o, *event_loop);
    if (!context && *event_loop != SNAPBOARD_LOOP_POLL) {
        *event_loop = SNAPBOARD_LOOP_POLL;
        context = snapboard_create_context_on(o, *event_loop);
    }
    return context;
}

int snapboard_adopt(struct lws_context *context, int fd)
{
    struct lws_vhost *vhost = lws_get_vhost_by_name(context, "snapboard");
    if (!vhost) return 0;
    return lws_adopt_socket_vhost(vhost, fd) != NULL;
}

int snapboard_listen_port(struct lws_context *context)
{
    struct lws_vhost *vhost = lws_get_vhost_by_name(context, "snapboard");
    return vhost ? lws_get_vhost_listen_port(vhost) : -1;
}

struct lws *snapboard_client_connect(struct lws_context *context, const char *host, int port, const char *path,
                                     void *opaque, int tls, const char *method)
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
    info.method = method;
    return lws_client_connect_via_info(&info);
}

int snapboard_http_client_read(struct lws *wsi, char *buffer, int size)
{
    char *p = buffer + LWS_PRE;
    int len = size;
    return lws_http_client_read(wsi, &p, &len);
}

void snapboard_malloc_trim(void)
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}
