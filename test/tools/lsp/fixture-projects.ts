/**
 * Tiny projects the real-server tests start language servers on, written
 * into a temporary folder per test (a TypeScript file with a type error
 * cannot live in the repository: North's own typecheck would read it).
 * Each has a clean file and `broken.*` with one error the language reports.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const FIXTURE_PROJECTS = {
    c: {
        "broken.c": '#include "greet.h"\n\nint total(void) { return add(1, "two", 3); }\n',
        "compile_flags.txt": "-std=c11\n-Wall\n",
        "greet.c": '#include "greet.h"\n\nint add(int a, int b) { return a + b; }\n',
        "greet.h": "int add(int a, int b);\n",
    },
    go: {
        "broken/broken.go":
            'package broken\n\n// Count is not a number.\nvar Count int = "three"\n',
        "go.mod": "module example.com/fixture\n\ngo 1.19\n",
        "greet.go":
            'package fixture\n\n// Greet says hello.\nfunc Greet(name string) string {\n\treturn "Hello, " + name\n}\n',
        "main.go":
            'package fixture\n\n// Message is the greeting.\nvar Message string = Greet("North")\n',
    },
    python: {
        "broken.py": 'count: int = "three"\n',
        "greet.py": 'def greet(name: str) -> str:\n    return "Hello, " + name\n',
        "main.py": 'from greet import greet\n\nmessage: str = greet("North")\n',
        "pyrightconfig.json": '{ "typeCheckingMode": "basic" }\n',
    },
    shell: {
        "broken.sh": '#!/bin/bash\nif [ -n "$1" ]; then\n  echo "missing fi"\n',
        "ok.sh": '#!/bin/sh\necho "hello"\n',
    },
    ts: {
        "broken.ts": 'export const count: number = "three";\n',
        "greet.ts":
            "export function greet(name: string): string {\n    return `Hello, ${name}`;\n}\n",
        "main.ts":
            'import { greet } from "./greet";\n\nexport const message: string = greet("North");\n',
        "tsconfig.json":
            '{\n    "compilerOptions": {\n        "target": "ES2022",\n        "module": "ESNext",\n        "moduleResolution": "Bundler",\n        "strict": true,\n        "noEmit": true\n    },\n    "include": ["*.ts"]\n}\n',
    },
} satisfies Record<string, Record<string, string>>;

export type FixtureKind = keyof typeof FIXTURE_PROJECTS;

/** A fresh copy of the `kind` project in a temporary folder; returns its path. */
export function writeFixtureProject(kind: FixtureKind): string {
    const dir = mkdtempSync(join(tmpdir(), `north-lsp-${kind}-`));
    for (const [name, text] of Object.entries(FIXTURE_PROJECTS[kind])) {
        mkdirSync(dirname(join(dir, name)), { recursive: true });
        writeFileSync(join(dir, name), text);
    }
    return dir;
}
