/* tileport stand-in: see common.h */
#pragma once
#include "common.h"
