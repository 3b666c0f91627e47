/* tileport CPU emulation stand-in for <cooperative_groups/scan.h>: scans are not emulated */
#pragma once
#include <cooperative_groups.h>
