/* tileport parse stand-in: cg::reduce and the scans are declared in <cooperative_groups.h> */
#pragma once
#include <cooperative_groups.h>
