"""CUDA front end: libclang AST -> tileport IR (parse, kernels, calls, memory, launch, templates,
types, groups, each its own module)."""


def convert_cuda(path: str, include_dirs=(), defines=(), block=None, grid=None, context=None, foreign=()):
    from porter.frontends.cuda.kernels import CudaFrontend

    return CudaFrontend(path, include_dirs, defines, block, grid, context, foreign).run()
