/* tileport parse stand-in: the parse shim already declares what math_constants.h provides */
#define CUDART_INF_F __builtin_huge_valf()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_PI_F 3.141592654f
#define CUDART_INF __builtin_huge_val()
