import functools


def libentry():
    """A caching decorator that returns the jit function it wraps."""

    def decorator(fn):
        return functools.wraps(fn)(fn)

    return decorator
