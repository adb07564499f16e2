/* tp_version(): the library's own version, from the header it was built with. */
#include "tenport/version.h"

#define TP_STRINGIFY_(x) #x
#define TP_STRINGIFY(x) TP_STRINGIFY_(x)

const char *tp_version(void) {
  return TP_STRINGIFY(TP_VERSION_MAJOR) "." TP_STRINGIFY(TP_VERSION_MINOR) "." TP_STRINGIFY(
      TP_VERSION_PATCH);
}
