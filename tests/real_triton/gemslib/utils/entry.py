import functools


def libentry():
    """A caching decorator that returns the jit function it wraps."""

    def decorator(fn):
        return functools.wraps(fn)(fn)

    return decorator


def libtuner(configs, key, strategy="default"):
    """An autotuner of the library's own, with triton.autotune's configs and key."""

    def decorator(fn):
        return fn

    return decorator
