"""Ground truth for Python from the standard `ast` module.

What counts: classes and functions outside function bodies (a def in a class
body is a method, also under if/try inside it), and module-level constants
(a single ALL_CAPS name assigned at indentation 0). Anything inside a function
body is marked nested. Start is the def/class line (after decorators).
Usage: python3 truth.py FILE > symbols.json
"""
import ast
import json
import re
import sys

CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*$")
COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)
if hasattr(ast, "TryStar"):
    COMPOUND = COMPOUND + (ast.TryStar,)


def symbols(tree):
    out = []

    def add(name, kind, node, nested, container=None):
        item = {"name": name, "kind": kind, "line": node.lineno, "endLine": node.end_lineno}
        if container:
            item["container"] = container
        if nested:
            item["nested"] = True
        out.append(item)

    def body_of(node):
        for field in ("body", "orelse", "finalbody"):
            yield from getattr(node, field, [])
        for handler in getattr(node, "handlers", []):
            yield from handler.body
        for case in getattr(node, "cases", []):
            yield from case.body

    def walk(statements, scope, owner, nested):
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kind = "method" if scope == "class" else "function"
                add(node.name, kind, node, nested, owner if scope == "class" else None)
                walk(node.body, "function", node.name, True)
            elif isinstance(node, ast.ClassDef):
                add(node.name, "class", node, nested, owner)
                walk(node.body, "class", node.name, nested)
            elif isinstance(node, COMPOUND) or (hasattr(ast, "Match") and isinstance(node, ast.Match)):
                walk(list(body_of(node)), scope, owner, nested)
            elif scope == "module" and node.col_offset == 0 and not nested:
                target = None
                if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                    target = node.targets[0].id
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    if isinstance(node.target, ast.Name):
                        target = node.target.id
                if target and CONSTANT.match(target):
                    add(target, "const", node, False)

    walk(tree.body, "module", None, False)
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    json.dump(symbols(tree), sys.stdout)


main()
