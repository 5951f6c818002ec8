import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createToolRegistry } from "../../src/tools/registry";
import { createRememberTool } from "../../src/tools/remember";
import { isPreparedWrite } from "../../src/tools/types";

const roots: string[] = [];
afterEach(async () => {
    for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

async function repo(): Promise<string> {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-remember-")));
    roots.push(root);
    return root;
}

const registry = createToolRegistry([createRememberTool()]);
const indexOf = (root: string) => path.join(root, ".north", "memory", "MEMORY.md");

describe("remember", () => {
    it("prepares a reviewed append to the project memory and writes nothing before apply", async () => {
        const root = await repo();
        const ctx = { repoRoot: root, signal: new AbortController().signal };
        const result = await registry.execute("remember", { note: "Use pnpm,\nnot npm" }, ctx);
        expect(result.ok).toBe(true);
        if (!result.ok || !isPreparedWrite(result.data)) throw new Error("no prepared write");
        expect(result.data.diffs[0]?.path).toBe(".north/memory/MEMORY.md");
        expect(result.data.diffs[0]?.diff).toContain("+- Use pnpm, not npm");
        await expect(fs.stat(indexOf(root))).rejects.toThrow();
        expect((await result.data.apply()).ok).toBe(true);
        expect(await fs.readFile(indexOf(root), "utf8")).toBe("# Memory\n\n- Use pnpm, not npm\n");

        const second = await registry.execute("remember", { note: "Tests need Docker" }, ctx);
        if (!second.ok || !isPreparedWrite(second.data)) throw new Error("no prepared write");
        await second.data.apply();
        expect(await fs.readFile(indexOf(root), "utf8")).toBe(
            "# Memory\n\n- Use pnpm, not npm\n- Tests need Docker\n"
        );
    });

    it("refuses an empty note and an oversized one", async () => {
        const root = await repo();
        const ctx = { repoRoot: root, signal: new AbortController().signal };
        const empty = await registry.execute("remember", { note: "  \n " }, ctx);
        expect(empty.ok).toBe(false);
        const big = await registry.execute("remember", { note: "x".repeat(5000) }, ctx);
        expect(big.ok || big.error.code).toBe("input_too_large");
        await expect(fs.stat(indexOf(root))).rejects.toThrow();
    });
});
