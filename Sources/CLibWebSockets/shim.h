#ifndef SNAPBOARD_CLIBWEBSOCKETS_SHIM_H
#define SNAPBOARD_CLIBWEBSOCKETS_SHIM_H

/* What Swift cannot import from libwebsockets as it is: macros that are expressions or variadic.
   Snapboard's use of libwebsockets (context options, client connects, libev, its timer struct) is C code
   of its own, in the CSnapboardLWS target. */

#include <libwebsockets.h>

/// The headroom libwebsockets needs before every payload handed to lws_write().
/// LWS_PRE is a macro expression, which Swift cannot import, so it is re-exported here.
static const size_t snapboard_lws_pre = LWS_PRE;

/// lwsl_* are variadic macros; Swift can call these fixed-arity wrappers instead.
static inline void snapboard_lws_log_err(const char *message) { lwsl_err("%s\n", message); }
static inline void snapboard_lws_log_warn(const char *message) { lwsl_warn("%s\n", message); }
static inline void snapboard_lws_log_notice(const char *message) { lwsl_notice("%s\n", message); }
static inline void snapboard_lws_log_info(const char *message) { lwsl_info("%s\n", message); }

#endif
