#ifndef CPSL_SHIM_H
#define CPSL_SHIM_H

#include <libpsl.h>

#endif
