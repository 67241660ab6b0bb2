// cairo (Debian's libcairo2-dev) for the server-side PNG export. cairo's API imports into Swift as it is:
// no variadic functions or macro expressions that need a wrapper, so this header only includes it.
#ifndef SNAPBOARD_CLIBCAIRO_SHIM_H
#define SNAPBOARD_CLIBCAIRO_SHIM_H

#include <cairo.h>

#endif
