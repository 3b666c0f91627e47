/* tileport parse stand-in: cg::reduce is declared in <cooperative_groups.h> */
#pragma once
#include <cooperative_groups.h>
