import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { MODULE_STATE_ALLOWLIST } from "../../scripts/eslint-module-state.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const RULE = "north-state/no-module-state";

/** The repository's own config (the rule as wired), on snippets at paths under src/ that do not exist. */
function linter(allow?: Array<{ file: string; name: string; reason: string }>): ESLint {
    return new ESLint({
        cwd: root,
        overrideConfig: {
            languageOptions: { parserOptions: { projectService: false } },
            ...(allow ? { rules: { [RULE]: ["error", { allow }] } } : {}),
        },
        ruleFilter: ({ ruleId }) => ruleId === RULE,
    });
}

async function lint(code: string, file = "tools/x.ts", eslint = linter()): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: `src/${file}` });
    return (result?.messages ?? []).map((m) => `${m.line}: ${m.message}`);
}

describe("no module-level mutable state in src/", () => {
    it("catches a top-level let or var, exported or not", async () => {
        for (const code of [
            "let count = 0;\nexport function next() { return ++count; }\n",
            "export let current: string | undefined;\n",
            "var legacy = 1;\nexport const read = () => legacy;\n",
        ]) {
            const messages = await lint(code);
            expect(messages, code).toHaveLength(1);
            expect(messages[0]).toMatch(/^1: Module-level `(let|var) \w+` is state/);
        }
    });

    it("catches a Map, Set, WeakMap, array or object at the top that a function changes", async () => {
        const cases: Array<[string, RegExp]> = [
            [
                "const cache = new Map<string, number>();\nexport function f(k: string) { cache.set(k, 1); }\n",
                /`cache` is changed inside a function \(calls \.set\(\)\)/,
            ],
            [
                "const live = new Set<number>();\nexport const track = (n: number) => live.add(n);\n",
                /`live` .*calls \.add\(\)/,
            ],
            [
                "const seen = new WeakMap<object, number>();\nexport function f(o: object) { seen.set(o, 1); }\n",
                /`seen` .*calls \.set\(\)/,
            ],
            [
                "const queue: string[] = [];\nexport function f(s: string) { queue.push(s); }\n",
                /`queue` .*calls \.push\(\)/,
            ],
            [
                "const state = { n: 0 };\nexport function f() { state.n++; }\n",
                /`state` .*writes a property of it/,
            ],
            [
                "const byId: Record<string, number> = {};\nexport function f(id: string) { byId[id] = 1; }\n",
                /`byId` .*writes a property of it/,
            ],
            [
                "const table = {} as Record<string, number>;\nexport function f() { Object.assign(table, { a: 1 }); }\n",
                /`table` .*assigns properties to it/,
            ],
            [
                "const nested = { list: [] as number[] };\nexport function f() { delete nested.list; }\n",
                /`nested` .*writes a property of it/,
            ],
        ];
        for (const [code, message] of cases) {
            const messages = await lint(code);
            expect(messages, code).toEqual([expect.stringMatching(message)]);
        }
    });

    it("allows constant tables: built once at the top level, only read by functions", async () => {
        const code = [
            'const NAMES = new Set(["a", "b"]);',
            "const BY_EXT = new Map<string, number>();",
            'for (const [i, ext] of ["ts", "js"].entries()) BY_EXT.set(ext, i);',
            "const LIMITS = Object.freeze({ max: 3 });",
            "export function f(s: string) { return NAMES.has(s) && BY_EXT.get(s) !== LIMITS.max; }",
            // State inside a function or an object belongs to its owner.
            "export function make() { let n = 0; const seen = new Set<number>(); return () => seen.add(++n); }",
            "export class Counter { private n = 0; next() { return ++this.n; } }",
            "",
        ].join("\n");
        expect(await lint(code)).toEqual([]);
    });

    it("allows exactly the allowlisted bindings of the allowlisted file", async () => {
        const eslint = linter([
            {
                file: "src/cli/launch-boundary.ts",
                name: "loaded",
                reason: "write-once lazy cache on the launch path",
            },
        ]);
        const code =
            "let loaded: object | undefined;\nlet other = 0;\nexport const get = () => (loaded ??= {});\nexport const bump = () => ++other;\n";
        expect(await lint(code, "cli/launch-boundary.ts", eslint)).toEqual([
            expect.stringMatching(/^2: Module-level `let other`/),
        ]);
        // The same binding elsewhere is still caught.
        expect(await lint(code, "cli/other.ts", eslint)).toHaveLength(2);
    });

    it("lists no binding that no longer exists, each with its reason", () => {
        const stale = MODULE_STATE_ALLOWLIST.filter(({ file, name, reason }) => {
            const path = join(root, file);
            if (!existsSync(path) || reason.trim() === "") return true;
            return !new RegExp(`^(export )?(let|const|var) ${name}\\b`, "m").test(
                readFileSync(path, "utf8")
            );
        });
        expect(stale).toEqual([]);
    });
});
