"""What a CUDA translation unit defines, and whose problem each parse error is.

Real project files carry host code that does not compile here (cuBLAS, torch bindings, missing
headers' types), kernels that use wmma next to plain ones, and helpers nobody calls. A kernel
fails only for an error in its own body or in device code it calls; everything else is noise to
the port. The same inventory tells the CPU emulator which definitions to drop so that the good
kernels still build (`emulator_sources`).

Only cursors of the user's own files are visited (the C++ standard headers pulled in by the parse
shim hold over a million cursors).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from porter.frontends.cuda import parse as ct

_CONTAINERS = ("NAMESPACE", "LINKAGE_SPEC", "UNEXPOSED_DECL")
_PREPROCESSING = ("MACRO_INSTANTIATION", "MACRO_DEFINITION", "INCLUSION_DIRECTIVE")
_RECORDS = ("STRUCT_DECL", "CLASS_DECL", "CLASS_TEMPLATE", "UNION_DECL")
_FUNCTIONS = ("FUNCTION_DECL", "FUNCTION_TEMPLATE", "CXX_METHOD", "CONSTRUCTOR", "DESTRUCTOR",
              "CONVERSION_FUNCTION")


@dataclass
class Definition:
    """One top-level (or member) definition of a user file, by instantiation-location lines."""

    cursor: object
    kind: str               # "kernel", "device", "host", "other"
    file: str
    start: int              # first line
    end: int                # last line
    body: tuple | None = None  # (start offset, end offset, (line, col)) of a function's body
    errors: list = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.cursor.spelling


def is_user_cursor(c) -> bool:
    loc = c.location
    if loc.is_in_system_header:  # one C call; most of a TU's cursors stop here
        return False
    f = loc.file
    return bool(f) and not f.name.startswith(_SHIM_PREFIX)


_SHIM_PREFIX = str(ct.SHIM_DIR)


def cursor_tokens(c) -> list:
    """The tokens of a definition. libclang gives none for some whole functions (a kernel whose
    body names a shim macro, a template's instantiated copy under `#line`) while their parts
    have theirs: then the parts' tokens, in order."""
    return list(c.get_tokens()) or [t for ch in c.get_children() for t in ch.get_tokens()]


def user_top_level(tu) -> list:
    """The translation unit's top-level cursors from the user's files, found once per TU and
    shared by every reader (templates, launches, the inventory): the walk over the standard
    headers' ten thousand declarations is paid once."""
    found = getattr(tu, "_tileport_user_top_level", None)
    if found is None:
        found = [c for c in tu.cursor.get_children() if is_user_cursor(c)]
        tu._tileport_user_top_level = found
    return found


def _kind_of(c, K) -> str:
    attrs = {ch.kind for ch in c.get_children()}
    if K.CUDAGLOBAL_ATTR in attrs:
        return "kernel"
    if K.CUDADEVICE_ATTR in attrs:
        return "device"
    # constexpr functions are implicitly host+device in clang's CUDA mode
    body = next((ch.extent.start.offset for ch in c.get_children() if ch.kind == K.COMPOUND_STMT),
                c.extent.end.offset)
    for t in c.get_tokens():
        if t.extent.start.offset >= body:
            break
        if t.spelling == "constexpr":
            return "device"
    return "host"


class Inventory:
    """Every definition in the user's files, and the parse errors attributed to them."""

    def __init__(self, tu, errors):
        self.K = ct.cindex().CursorKind
        self.definitions: list[Definition] = []
        for c in user_top_level(tu):
            self._visit(c)
        self._attribute(errors)
        self.has_errors = any(d.errors for d in self.definitions)

    def _visit(self, c) -> None:
        K = self.K
        name = c.kind.name
        if name in _PREPROCESSING:
            return  # a macro use inside a kernel owns none of the kernel's errors
        if name in _CONTAINERS:
            for ch in c.get_children():
                self._visit(ch)
            return
        start, end = c.extent.start, c.extent.end
        if name in _FUNCTIONS and c.is_definition():
            body = next((ch for ch in c.get_children() if ch.kind == K.COMPOUND_STMT), None)
            span = (body.extent.start.offset, body.extent.end.offset,
                    (body.extent.start.line, body.extent.start.column)) if body is not None else None
            kind = _kind_of(c, K)
            if name != "FUNCTION_DECL" and name != "FUNCTION_TEMPLATE" and kind == "host":
                kind = "member"  # a method without attributes: the parent decides
            self.definitions.append(Definition(c, kind, start.file.name, start.line, end.line, span))
            return
        if name in _RECORDS:
            methods_before = len(self.definitions)
            for ch in c.get_children():
                if ch.kind.name in _FUNCTIONS:
                    self._visit(ch)
            record = Definition(c, "other", start.file.name, start.line, end.line)
            self.definitions.insert(methods_before, record)
            return
        if start.file is not None:
            self.definitions.append(Definition(c, "other", start.file.name, start.line, end.line))

    def _attribute(self, errors) -> None:
        for err in errors:
            loc = err.diagnostic.loc
            owner = None
            for d in self.definitions:
                if d.file == loc.file and d.start <= loc.line <= d.end:
                    # the innermost: a method inside its struct
                    if owner is None or (d.end - d.start) <= (owner.end - owner.start):
                        owner = d
            if owner is not None:  # an error in no definition is nobody's (a stray token)
                owner.errors.append(err)

    # ----------------------------------------------------------------- queries

    def kernels(self) -> list[Definition]:
        return [d for d in self.definitions if d.kind == "kernel"]

    def host_functions(self) -> list:
        return [d.cursor for d in self.definitions if d.kind == "host"]

    def owner(self, cursor) -> Definition | None:
        if cursor is None or not cursor.location.file:
            return None
        f, line = cursor.location.file.name, cursor.location.line
        best = None
        for d in self.definitions:
            if d.file == f and d.start <= line <= d.end and d.kind != "other":
                if best is None or (d.end - d.start) <= (best.end - best.start):
                    best = d
        return best

    def errors_reaching(self, kernel: Definition) -> list:
        """Errors in the kernel, in device code it calls (transitively), and in the structs whose
        methods it calls."""
        if not self.has_errors:
            return []  # the common case: nothing to walk for
        return [e for d in self.reaching(kernel) for e in d.errors]

    def reaching(self, kernel: Definition, *more: Definition) -> list:
        """The kernel (and `more` roots), then the definitions they reach (calls, references),
        nearest first. A definition with parse errors, or a template (its dependent calls are not
        resolved), may lack calls (`getPoint(x, state)` with no matching overload): it also
        reaches the device functions its body names."""
        seen, todo, out = set(), [kernel, *more], []
        while todo:
            d = todo.pop(0)
            if id(d) in seen:
                continue
            seen.add(id(d))
            out.append(d)
            for c in d.cursor.walk_preorder():
                if c.kind not in (self.K.CALL_EXPR, self.K.DECL_REF_EXPR, self.K.MEMBER_REF_EXPR):
                    continue
                ref = c.referenced
                if ref is None:
                    continue
                target = ref.get_definition() or ref
                callee = self.owner(target) if is_user_cursor(target) else None
                if callee is not None and callee is not d:
                    todo.append(callee)
            if d.errors or d.cursor.kind == self.K.FUNCTION_TEMPLATE:
                names = {t.spelling for t in cursor_tokens(d.cursor) if t.kind.name == "IDENTIFIER"}
                todo += [e for e in self.definitions if e.kind in ("device", "kernel", "member")
                         and e.name in names and e is not d]
        return out

    def function_names(self) -> frozenset:
        """Names of the user's own functions."""
        return frozenset(d.name for d in self.definitions if d.kind != "other")

    # ----------------------------------------------------------------- emulator

    def emulator_sources(self, failed_kernels: set, read) -> dict:
        """{file: text} for each user file the CPU emulator must see changed: bodies of host
        functions replaced by a trap (every one: nothing the emulator runs calls them), failed kernels emptied, and other definitions
        with errors (unused device code, globals of missing headers' types) blanked. Line
        numbers are kept, so emulator messages still point at the user's lines."""
        cuts: dict = {}
        for d in self.definitions:
            failed = d.kind == "kernel" and d.name in failed_kernels
            host = d.kind == "host" and d.body is not None  # no kernel runs it: its body costs a
            #   build only (a call to a function another file defines fails the load)
            if not d.errors and not failed and not host:
                continue
            if d.kind in ("host", "kernel") and d.body is not None and \
                    all(_inside(e, d) for e in d.errors):
                filler = "{ }" if d.kind == "kernel" else "{ __builtin_unreachable(); }"
                cuts.setdefault(d.file, []).append((d.body[0], d.body[1], filler))
            else:
                # a struct or variable ends at its '}' or name: its ';' stays in the text
                cuts.setdefault(d.file, []).append((d.cursor.extent.start.offset,
                                                    d.cursor.extent.end.offset, ""))
        out = {}
        for path, spans in cuts.items():
            data = read(path).encode("utf-8")
            for start, end, filler in _outermost(spans):
                if end > len(data):
                    continue  # text tileport appended (template instantiations)
                if not filler and data[end:].lstrip().startswith((b",", b"=")):
                    # the declaration's other names and initializer go too: clang drops
                    # `*d_tempArray` of `cudaArray *d_array, *d_tempArray;` (an unknown type),
                    # and an initializer it could not read, which cut alone left `, *d_tempArray;`
                    # or `= cudaCreateChannelDesc<uchar4>();`
                    end = data.find(b";", end) if b";" in data[end:] else end
                newlines = data[start:end].count(b"\n")
                data = data[:start] + filler.encode() + b"\n" * newlines + data[end:]
            out[path] = data.decode("utf-8")
        return out


def _inside(err, d: Definition) -> bool:
    """Whether an error sits in the function's body (the signature is then fine)."""
    loc = err.diagnostic.loc
    return d.body is not None and (loc.line, loc.col) >= d.body[2]


def _outermost(spans):
    """Spans sorted from the end, nested ones dropped (a struct cut covers its methods)."""
    spans = sorted(spans, key=lambda s: (s[0], -s[1]))
    kept = []
    for s in spans:
        if kept and s[0] < kept[-1][1]:
            continue
        kept.append(s)
    return sorted(kept, reverse=True)
