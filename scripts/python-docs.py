"""The Python SDK reference (docs/python/index.html), read from the source with ``ast``: nothing is
imported, so neither httpx nor the package has to be installable where the docs are built.

It follows ``packages/python/src/leasehold/__init__.py``: every name of its ``__all__``, in that
order, found through the package's ``from .module import name`` chains, with its signature (the
annotations and defaults as written), its docstring, its bases, and for a class its public
methods, properties and documented attributes (``self.x = …`` followed by a string), those it
inherits from the package's own classes included. Output is deterministic (no dates, no paths of
this machine), one self-contained page.

Usage: python3 scripts/python-docs.py [--out docs/python/index.html]
"""

from __future__ import annotations

import argparse
import ast
import html
import inspect
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import Optional, Union

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "packages/python/src/leasehold"
FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


@dataclass
class Member:
    """One documented member of a class: a method, a property or an attribute."""

    kind: str
    name: str
    signature: str
    doc: str
    owner: str


@dataclass
class Entry:
    """One public name of the package."""

    name: str
    kind: str
    module: str
    signature: str
    doc: str
    bases: list[str] = field(default_factory=list)
    members: list[Member] = field(default_factory=list)


class Package:
    """The package's modules, parsed once, and the resolution of a name to where it is defined."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._trees: dict[str, ast.Module] = {}

    def tree(self, module: str) -> ast.Module:
        """The parsed module (``_spaces``, ``resources.tasks``)."""
        if module not in self._trees:
            path = self.root / (module.replace(".", "/") + ".py")
            if not path.exists():
                path = self.root / module.replace(".", "/") / "__init__.py"
            self._trees[module] = ast.parse(path.read_text(encoding="utf-8"), str(path))
        return self._trees[module]

    def is_package(self, module: str) -> bool:
        """Whether ``module`` is a folder with an ``__init__.py`` (the root is ``__init__``)."""
        return module == "__init__" or (self.root / module.replace(".", "/") / "__init__.py").exists()

    def resolve(self, module: str, name: str, depth: int = 0) -> Optional[tuple[str, ast.stmt]]:
        """Where ``name`` as seen from ``module`` is defined: (module, its statement)."""
        if depth > 10:
            return None
        for node in self.tree(module).body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return module, node
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                return module, node
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                return module, node
        for node in self.tree(module).body:
            if isinstance(node, ast.ImportFrom) and node.level >= 1 and any((a.asname or a.name) == name for a in node.names):
                original = next(a.name for a in node.names if (a.asname or a.name) == name)
                return self.resolve(relative_module(self, module, node), original, depth + 1)
        return None


def relative_module(package: Package, module: str, node: ast.ImportFrom) -> str:
    """The dotted module (relative to the package root) that a ``from .x import`` in ``module`` names."""
    parts = [] if module == "__init__" else module.split(".")
    if not package.is_package(module):
        parts = parts[:-1]  # a module's own package
    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    target = [*parts, *(node.module.split(".") if node.module else [])]
    return ".".join(target) or "__init__"


def public_names(package: Package) -> list[str]:
    """``__all__`` of ``__init__.py``, in its order."""
    for node in package.tree("__init__").body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            value = ast.literal_eval(node.value)
            return [str(name) for name in value]
    raise SystemExit("python-docs: packages/python/src/leasehold/__init__.py has no __all__")


def signature_of(node: FunctionNode, drop_first: bool) -> str:
    """``(a: int, *, b: str = 'x') -> None`` as written, without ``self``/``cls``."""
    args = ast.arguments(
        posonlyargs=list(node.args.posonlyargs), args=list(node.args.args), vararg=node.args.vararg,
        kwonlyargs=list(node.args.kwonlyargs), kw_defaults=list(node.args.kw_defaults), kwarg=node.args.kwarg,
        defaults=list(node.args.defaults),
    )
    if drop_first:
        if args.posonlyargs:
            args.posonlyargs.pop(0)
        elif args.args:
            args.args.pop(0)
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    return f"({ast.unparse(args)}){returns}"


def decorators(node: FunctionNode) -> set[str]:
    """The simple names of a function's decorators (``property``, ``staticmethod``, …)."""
    return {ast.unparse(d).split("(")[0] for d in node.decorator_list}


def attribute_docs(init: FunctionNode) -> list[tuple[str, str, str]]:
    """(name, annotation, docstring) of each public ``self.x = …`` in ``__init__``, with the string
    that follows it (its docstring) when there is one."""
    found: list[tuple[str, str, str]] = []
    body = [*init.body, ast.Pass()]
    for statement, following in zip(body, body[1:]):
        target: Optional[ast.expr] = None
        annotation = ""
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
        elif isinstance(statement, ast.AnnAssign):
            target, annotation = statement.target, ast.unparse(statement.annotation)
        if (
            isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
            and not target.attr.startswith("_") and all(name != target.attr for name, _a, _d in found)
        ):
            doc = ""
            if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant) and isinstance(following.value.value, str):
                doc = inspect.cleandoc(following.value.value)
            found.append((target.attr, annotation, doc))
    return found


def class_members(package: Package, module: str, node: ast.ClassDef, seen: set[str], depth: int = 0) -> list[Member]:
    """The public members of ``node`` and of the package's classes it derives from (nearest first)."""
    members: list[Member] = []
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            public = not item.name.startswith("_") or item.name in ("__enter__", "__aenter__", "__iter__", "__aiter__")
            if item.name == "__init__":
                for name, annotation, doc in attribute_docs(item):
                    if name not in seen:
                        seen.add(name)
                        members.append(Member("attribute", name, f": {annotation}" if annotation else "", doc, node.name))
                continue
            if not public or item.name in seen:
                continue
            seen.add(item.name)
            marks = decorators(item)
            if "property" in marks or "functools.cached_property" in marks or "cached_property" in marks:
                returns = f": {ast.unparse(item.returns)}" if item.returns is not None else ""
                members.append(Member("property", item.name, returns, ast.get_docstring(item) or "", node.name))
            else:
                prefix = "async " if isinstance(item, ast.AsyncFunctionDef) else ""
                static = "staticmethod" in marks
                kind = "classmethod" if "classmethod" in marks else "staticmethod" if static else "method"
                members.append(Member(kind, item.name, prefix + signature_of(item, drop_first=not static), ast.get_docstring(item) or "", node.name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and not item.target.id.startswith("_"):
            if item.target.id not in seen:
                seen.add(item.target.id)
                members.append(Member("field", item.target.id, f": {ast.unparse(item.annotation)}", "", node.name))
    if depth < 6:
        for base in node.bases:
            found = package.resolve(module, ast.unparse(base).split("[")[0])
            if found is not None and isinstance(found[1], ast.ClassDef):
                members += class_members(package, found[0], found[1], seen, depth + 1)
    return members


def entry_for(package: Package, name: str) -> Entry:
    """What the reference says about one public name."""
    found = package.resolve("__init__", name)
    if found is None:
        raise SystemExit(f"python-docs: {name} (in __all__) is defined nowhere in the package")
    module, node = found
    if isinstance(node, ast.ClassDef):
        init = next((i for i in node.body if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef)) and i.name == "__init__"), None)
        signature = signature_of(init, drop_first=True) if init is not None else ""
        bases = [ast.unparse(b) for b in node.bases]
        kind = "exception" if any(b.endswith(("Error", "Exception")) for b in bases) or name.endswith("Error") else "class"
        return Entry(name, kind, module, signature, ast.get_docstring(node) or "", bases, class_members(package, module, node, set()))
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        prefix = "async " if isinstance(node, ast.AsyncFunctionDef) else ""
        return Entry(name, "function", module, prefix + signature_of(node, drop_first=False), ast.get_docstring(node) or "")
    value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
    text = ast.unparse(value) if value is not None else ""
    return Entry(name, "constant", module, f" = {text}" if len(text) < 400 else "", docstring_after(package.tree(module), node))


def docstring_after(tree: ast.Module, node: ast.stmt) -> str:
    """The string literal right after a module-level assignment (its attribute docstring)."""
    body = tree.body
    for statement, following in zip(body, body[1:]):
        if statement is node and isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant) and isinstance(following.value.value, str):
            return inspect.cleandoc(following.value.value)
    return ""


def render_doc(text: str, names: set[str]) -> str:
    """A docstring as paragraphs; ````code````, ``:class:`X``` and ``:meth:`X.y``` become code, linked when public."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    out = []
    for paragraph in paragraphs:
        escaped = html.escape(paragraph, quote=False)

        def role(match: re.Match[str]) -> str:
            target = match.group(1).lstrip("~.")
            head = target.split(".")[0]
            return f'<a href="#{head}"><code>{target}</code></a>' if head in names else f"<code>{target}</code>"

        escaped = re.sub(r":(?:class|meth|func|attr|exc|data):`([^`]+)`", role, escaped)
        escaped = re.sub(r"``([^`]+)``", r"<code>\1</code>", escaped)
        out.append(f"<p>{escaped}</p>")
    return "\n".join(out)


STYLE = """
body{font:15px/1.55 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#fff}
header{background:#1d2330;color:#fff;padding:18px 32px}header a{color:#9cc3ff}
main{display:grid;grid-template-columns:260px 1fr;gap:32px;padding:0 32px 64px}
nav{position:sticky;top:0;max-height:100vh;overflow:auto;padding:16px 0;font-size:14px}
nav h3{margin:14px 0 4px;font-size:13px;text-transform:uppercase;color:#667}nav a{display:block;color:#1d4ed8;text-decoration:none;padding:1px 0}
section.entry{border-top:1px solid #e3e6ee;padding:18px 0}h2{margin:0 0 6px;font-size:20px}
.sig,.member .sig{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;background:#f5f7fb;padding:6px 8px;border-radius:4px;white-space:pre-wrap;word-break:break-word}
.kind{font-size:12px;color:#667;font-weight:normal;margin-left:8px}.member{margin:12px 0 0 16px}.member h4{margin:0 0 4px;font-size:15px}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;background:#f5f7fb;padding:0 3px;border-radius:3px}
.inherited{color:#667;font-size:12px;margin-left:6px}
"""

CLIENTS = ("Leasehold", "AsyncLeasehold")
GROUPS: list[tuple[str, set[str], Callable[[Entry], bool]]] = [
    ("Clients", {"class"}, lambda e: e.name in CLIENTS), ("Classes", {"class"}, lambda e: True),
    ("Errors", {"exception"}, lambda e: True), ("Functions", {"function"}, lambda e: True),
    ("Types and constants", {"constant"}, lambda e: True),
]


def grouped(entries: list[Entry]) -> list[tuple[str, list[Entry]]]:
    """Entries in reading order: the clients, the other classes, errors, functions, types (``__all__`` order within each)."""
    placed: set[str] = set()
    groups: list[tuple[str, list[Entry]]] = []
    for title, kinds, test in GROUPS:
        members = [e for e in entries if e.kind in kinds and e.name not in placed and test(e)]
        placed.update(e.name for e in members)
        if members:
            groups.append((title, members))
    return groups


def render(entries: list[Entry], version: str) -> str:
    """The whole page."""
    names = {e.name for e in entries}
    nav, body = [], []
    for title, members in grouped(entries):
        nav.append(f"<h3>{html.escape(title)}</h3>" + "".join(f'<a href="#{e.name}">{e.name}</a>' for e in members))
        for e in members:
            bases = f" ({', '.join(html.escape(b) for b in e.bases)})" if e.bases else ""
            parts = [f'<section class="entry" id="{e.name}"><h2>{e.name}<span class="kind">{e.kind} · leasehold.{e.module.replace("__init__", "")}</span></h2>',
                     f'<div class="sig">{"class " if e.kind in ("class", "exception") else ""}{e.name}{html.escape(e.signature)}{bases}</div>',
                     render_doc(e.doc, names)]
            for m in e.members:
                inherited = f'<span class="inherited">from {m.owner}</span>' if m.owner != e.name else ""
                parts.append(f'<div class="member" id="{e.name}.{m.name}"><h4>{m.name}<span class="kind">{m.kind}</span>{inherited}</h4>'
                             f'<div class="sig">{html.escape(m.name + m.signature)}</div>{render_doc(m.doc, names)}</div>')
            parts.append("</section>")
            body.append("\n".join(parts))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>leasehold (Python SDK) {html.escape(version)} — reference</title><style>{STYLE}</style></head>
<body><header><strong>leasehold</strong> {html.escape(version)} — the Python SDK of the Leasehold coordination API ·
<a href="../">API reference</a> · <a href="../client/">TypeScript SDK reference</a></header>
<main><nav>{''.join(nav)}</nav><div>
<p>Generated from <code>packages/python/src/leasehold</code> by <code>scripts/python-docs.py</code>: every name of
<code>leasehold.__all__</code>. The wire types (<code>leasehold._generated.types</code>) are TypedDicts generated from the
OpenAPI document; their fields are the <a href="../">API reference</a>'s schemas.</p>
{''.join(body)}
</div></main></body></html>
"""


def version_of(package: Package) -> str:
    """``__version__`` as written in ``_version.py``."""
    for node in package.tree("_version").body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets):
            return str(ast.literal_eval(node.value))
    return "unknown"


def main() -> int:
    """Writes the reference; prints where."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", default=str(ROOT / "docs/python/index.html"))
    out = Path(parser.parse_args().out)
    package = Package(PACKAGE)
    entries = [entry_for(package, name) for name in public_names(package) if name != "__version__"]
    page = render(entries, version_of(package))
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_name(out.name + ".tmp")
    temporary.write_text(page, encoding="utf-8")
    temporary.replace(out)
    print(f"python-docs: wrote {out} ({len(entries)} names, {len(page.encode()) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
