/* tenport: portable tensor decompositions. Include this header to get the whole API. */
#ifndef TENPORT_TENPORT_H
#define TENPORT_TENPORT_H

#include "tenport/status.h"
#include "tenport/space.h"
#include "tenport/memory.h"
#include "tenport/primitives.h"
#include "tenport/hashmap.h"
#include "tenport/linalg.h"
#include "tenport/symtensor.h"
#include "tenport/sshopm.h"
#include "tenport/dwmri.h"
#include "tenport/files.h"
#include "tenport/npy.h"
#include "tenport/image.h"
#include "tenport/dense.h"
#include "tenport/mttkrp.h"
#include "tenport/cp_als.h"
#include "tenport/cp_apr.h"
#include "tenport/gcp.h"
#include "tenport/sparse.h"
#include "tenport/sparse_mttkrp.h"
#include "tenport/sttid.h"
#include "tenport/comm.h"
#include "tenport/distributed.h"
#include "tenport/version.h"

#endif
