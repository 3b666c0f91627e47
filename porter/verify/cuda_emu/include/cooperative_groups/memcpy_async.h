/* tileport CPU emulation stand-in: see tp_async_copy.h */
#pragma once
#include "../tp_async_copy.h"
