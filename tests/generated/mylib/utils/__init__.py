from mylib.utils.pointwise_dynamic import pointwise_dynamic  # noqa: F401
