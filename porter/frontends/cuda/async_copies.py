"""Asynchronous copies as the copies they complete: `cuda::memcpy_async` (through a pipeline or a
barrier), `cooperative_groups::memcpy_async`, `__pipeline_memcpy_async`.

An asynchronous copy may land at any time between its issue and the wait that completes it; a
kernel correct for every such time computes the same when it lands at once. So a copy ports as
plain element copies where it is issued (TileLang's own pipelining makes tile copies
asynchronous again), a per-thread pipeline's acquire/commit/wait/release and the
`__pipeline_commit`/`__pipeline_wait_prior` primitives as nothing, and the waits that also order
threads as the barriers they are: `cooperative_groups::wait(group)` and a block-scope
`cuda::barrier`'s `arrive_and_wait()`. A block-scope pipeline, whose producers and consumers are
ordered by the pipeline itself, and a barrier's split `arrive()`/`wait()` are not supported yet.
"""

from __future__ import annotations

from porter.diagnostics import TileportError
from porter.frontends.cuda import groups
from porter.frontends.cuda import parse as ct
from porter.frontends.cuda.types import is_pointer, vector_info
from porter.ir.nodes import BinOp, Const, For, Load, Store, Sync, Var, dtype_bits

#: Object types of the async-copy API by the start of their canonical spelling -> their role.
_TYPES = (("cuda::pipeline<cuda::thread_scope_thread>", "thread pipeline"),
          ("cuda::pipeline<", "block pipeline"),
          ("cuda::pipeline_shared_state<", "block pipeline"),
          ("cuda::barrier<cuda::thread_scope_block>", "block barrier"),
          ("cuda::barrier<", "other barrier"),
          ("cuda::aligned_size_t<", "size"))
#: Calls that order nothing once copies land at their issue.
_NOTHING_TO_WAIT_FOR = {"producer_acquire", "producer_commit", "consumer_wait", "consumer_release",
                        "__pipeline_commit", "__pipeline_wait_prior", "pipeline_consumer_wait_prior", "init"}
_UNROLLED_UP_TO = 16  # elements a thread's copy writes out one by one; longer copies loop


def async_role(ctype) -> str | None:
    spelling = ctype.get_canonical().spelling.replace("const ", "")
    return next((role for prefix, role in _TYPES if spelling.startswith(prefix)), None)


class AsyncCopiesMixin:
    """Methods of CudaFrontend for the async-copy API's objects and calls."""

    def async_declaration(self, d, init_cursor, scope, loc) -> list | None:
        """A pipeline or barrier object is no code; a `cuda::aligned_size_t` is its byte count."""
        role = async_role(d.type)
        if role is None:
            return None
        if role == "block pipeline":
            raise TileportError("TP151", "a block-scope cuda::pipeline (producers and consumers ordered "
                                "through the pipeline) is not supported yet; per-thread pipelines "
                                "(cuda::make_pipeline()) are", loc)
        if role == "size":
            scope.values[d.hash] = Const(self.byte_count(init_cursor, loc), "int64")
        return []

    def byte_count(self, c, loc) -> int:
        """A copy's size in bytes: a constant, or a `cuda::aligned_size_t` made from one."""
        c = self.skip_implicit(c) if c is not None else None
        for _ in range(8):
            if c is None:
                break
            value = ct.evaluate(c)
            if isinstance(value, int):
                return value
            if c.kind == self.K.DECL_REF_EXPR and c.referenced is not None and async_role(c.referenced.type):
                c = self.initializer(c.referenced)
                continue
            kids = [k for k in c.get_children() if k.kind.is_expression()]
            c = kids[-1] if kids else None
        raise TileportError("TP151", "an asynchronous copy of a size known only at run time is not "
                            "supported yet (its size must be a constant)", loc)

    def async_statement(self, c, scope, loc) -> list | None:
        """The IR of a statement-level call of the async-copy API, else None."""
        name = c.spelling
        args = list(c.get_arguments())
        role = self.async_object_role(c)
        if name == "memcpy_async" and args and self.group_arg(args[0], scope) is not None:
            return self.element_copies(args[1], args[2], self.byte_count(args[3], loc), scope, loc,
                                       group=self.group_arg(args[0], scope))
        if name == "memcpy_async" and len(args) == 4 and async_role(args[3].type) is not None:
            if async_role(args[3].type) in ("block pipeline", "other barrier"):
                raise TileportError("TP151", "copies through a block-scope pipeline or a device-scope "
                                    "barrier are not supported yet", loc)
            return self.element_copies(args[0], args[1], self.byte_count(args[2], loc), scope, loc)
        if name == "__pipeline_memcpy_async":
            zfill = self.byte_count(args[3], loc) if len(args) > 3 else 0
            size = self.byte_count(args[2], loc)
            if zfill:
                raise TileportError("TP151", "__pipeline_memcpy_async with a zero-fill count is not "
                                    "supported yet", loc)
            return self.element_copies(args[0], args[1], size, scope, loc)
        if name in ("wait", "wait_prior") and len(args) == 1 and self.group_arg(args[0], scope) is not None:
            return [groups.sync(self.group_arg(args[0], scope), loc)]  # the group's copies, seen by all
        if name in _NOTHING_TO_WAIT_FOR and (role == "thread pipeline" or name.startswith("__pipeline")
                                             or (name == "init" and args and async_role(args[0].type.get_pointee()))):
            return []
        if role == "block barrier" and name == "arrive_and_wait":
            return [Sync("block", loc)]
        if role in ("block barrier", "other barrier"):
            raise TileportError("TP151", f"cuda::barrier '{name}' is not supported yet (a block-scope "
                                "barrier's arrive_and_wait() is)", loc)
        return None

    def async_object_role(self, call) -> str | None:
        """The role of the object a method call is made on (`pipe.consumer_wait()`), else None."""
        callee = self.first_child(call)
        if callee is None or callee.kind != self.K.MEMBER_REF_EXPR:
            return None
        target = self.first_child(callee)
        return async_role(target.type) if target is not None else None

    def copy_address(self, c, scope):
        """(buffer, element offset) of a copy's `void *` operand: a pointer to the buffer's
        elements, or a view of them as vectors (`reinterpret_cast<float4 *>(&As[y][x])`)."""
        inner = self.skip_implicit(c)
        vector = vector_info(inner.type.get_pointee()) if is_pointer(inner.type) else None
        if vector is not None:
            return self.vector_address_of(inner, scope, vector[1])
        return self.pointer(c, scope)

    def element_copies(self, dst_c, src_c, nbytes: int, scope, loc, group=None) -> list:
        """`nbytes` from src to dst, element by element; a group's copy spreads its elements over
        the group's threads."""
        dst, dst_off = self.copy_address(dst_c, scope)
        src, src_off = self.copy_address(src_c, scope)
        dst_type, src_type = self.buffer_dtype(dst), self.buffer_dtype(src)
        width = dtype_bits(dst_type) // 8
        if src_type != dst_type or nbytes % width:
            raise TileportError("TP135", f"an asynchronous copy of {nbytes} bytes from {src_type} to "
                                f"{dst_type} elements is not supported yet (elements of one type, a whole "
                                "number of them)", loc)
        count = nbytes // width
        dst_off = dst_off if dst_off is not None else Const(0, "int64")
        src_off = src_off if src_off is not None else Const(0, "int64")

        def copy(e):
            return Store(dst, BinOp("+", dst_off, e, "int64"), Load(src, BinOp("+", src_off, e, "int64"), src_type), loc)

        if group is None and count <= _UNROLLED_UP_TO:
            return [copy(Const(e, "int64")) for e in range(count)]
        e = Var(self.unique("copied", scope), "int64")
        start = Const(0, "int64") if group is None else \
            self.coerce(groups.method(group, "thread_rank", [], "int32", loc), "int64")
        step = Const(1, "int64") if group is None else \
            self.coerce(groups.method(group, "size", [], "int32", loc), "int64")
        return [For(e, start, BinOp("<", e, Const(count, "int64"), "bool"), step, [copy(e)], loc)]
