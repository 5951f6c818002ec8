import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";

const JUDGE = fileURLToPath(
    new URL("../../../src/tools/permissions/command-judge.ts", import.meta.url)
);
const dir = mkdtempSync(join(tmpdir(), "north-bundled-judge-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the shell parser in a bundle", () => {
    it("finds its .wasm files beside the bundle, with no node_modules in reach", async () => {
        const entry = join(dir, "entry.ts");
        writeFileSync(
            entry,
            `const { judgeCommand } = await import(${JSON.stringify(JUDGE)});
const verdict = await judgeCommand("ls && rm -rf /", { allow: ["ls:*"], deny: ["rm:*"], ask: [] }, () => "allow");
process.stdout.write(JSON.stringify(verdict));
`
        );
        // The same shape as scripts/build.mjs: split chunks under chunks/, the wasm files copied to the root.
        await build({
            entryPoints: [entry],
            outdir: join(dir, "dist"),
            bundle: true,
            splitting: true,
            format: "esm",
            platform: "node",
            target: "node20",
            chunkNames: "chunks/[name]-[hash]",
            banner: {
                js: 'import { createRequire as __northCreateRequire } from "node:module"; const require = __northCreateRequire(import.meta.url);',
            },
            logLevel: "silent",
        });
        const resolveFromRoot = createRequire(import.meta.url).resolve;
        copyFileSync(
            resolveFromRoot("web-tree-sitter/tree-sitter.wasm"),
            join(dir, "dist", "tree-sitter.wasm")
        );
        copyFileSync(
            resolveFromRoot("tree-sitter-bash/tree-sitter-bash.wasm"),
            join(dir, "dist", "tree-sitter-bash.wasm")
        );
        const output = execFileSync(process.execPath, [join(dir, "dist", "entry.js")], {
            cwd: dir,
            encoding: "utf8",
        });
        expect(JSON.parse(output)).toEqual({
            decision: "deny",
            reason: "`rm -rf /` matches a deny rule",
            rule: "Bash(rm:*)",
            deniedBy: { type: "command", pattern: "rm:*" },
        });
    });

    it("says which file is missing when the wasm files were not copied", async () => {
        rmSync(join(dir, "dist", "tree-sitter-bash.wasm"));
        const output = execFileSync(process.execPath, [join(dir, "dist", "entry.js")], {
            cwd: dir,
            encoding: "utf8",
        });
        expect(JSON.parse(output)).toMatchObject({
            decision: "ask",
            reason: expect.stringMatching(
                /could not be parsed: the shell parser is missing tree-sitter-bash\.wasm/
            ),
        });
    });
});
