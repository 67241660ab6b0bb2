// libpq (Debian's libpq-dev), the PostgreSQL client library, for the cluster store. Its API imports into
// Swift as it is (the notice receiver is a plain C function pointer), so this header only includes it.
#ifndef SNAPBOARD_CLIBPQ_SHIM_H
#define SNAPBOARD_CLIBPQ_SHIM_H

#include <libpq-fe.h>

#endif
