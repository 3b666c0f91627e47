from gemslib.backends import select_backend

try:
    select_backend("cuda")
    shim = select_backend.math_module()
except ImportError:
    import triton

    try:
        shim = triton.language.extra.libdevice
    except AttributeError:
        shim = triton.language.math
