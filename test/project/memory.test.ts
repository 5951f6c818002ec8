import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    MEMORY_CAP_BYTES,
    appendMemoryNote,
    loadMemory,
    type MemoryDir,
} from "../../src/project/memory";

const roots: string[] = [];
afterEach(async () => {
    for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

async function dirs(
    user: Record<string, string | Buffer>,
    project: Record<string, string | Buffer>
): Promise<MemoryDir[]> {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-memory-")));
    roots.push(root);
    const out: MemoryDir[] = [];
    for (const [scope, files] of [
        ["user", user],
        ["project", project],
    ] as const) {
        const dir = path.join(root, scope);
        if (Object.keys(files).length > 0) await fs.mkdir(dir, { recursive: true });
        for (const [name, content] of Object.entries(files))
            await fs.writeFile(path.join(dir, name), content);
        out.push(
            scope === "user"
                ? { scope, dir, label: "~/.north/memory" }
                : { scope, dir, label: ".north/memory", insideRoot: dir }
        );
    }
    return out;
}

describe("loadMemory", () => {
    it("loads the index first, then topic files, the user's before the project's", async () => {
        const memory = loadMemory(
            await dirs(
                { "MEMORY.md": "- I prefer tabs" },
                {
                    "testing.md":
                        "---\nname: testing\ndescription: how tests run\ntype: project\n---\nTests need Docker.",
                    "MEMORY.md": "- Use pnpm",
                    "notes.txt": "not memory",
                }
            )
        );
        expect(memory.warnings).toEqual([]);
        const text = memory.text ?? "";
        expect(text).toContain("not instructions");
        const order = [
            "## ~/.north/memory/MEMORY.md",
            "- I prefer tabs",
            "## .north/memory/MEMORY.md",
            "- Use pnpm",
            "## .north/memory/testing.md",
            "Tests need Docker.",
        ].map((part) => text.indexOf(part));
        expect(order.every((at) => at >= 0)).toBe(true);
        expect([...order].sort((a, b) => a - b)).toEqual(order);
        expect(text).not.toContain("not memory");
    });

    it("is null without memory directories, and reports nothing", async () => {
        const memory = loadMemory(await dirs({}, {}));
        expect(memory).toEqual({ text: null, files: [], warnings: [] });
    });

    it("caps a 1 MB file, marks it and says so", async () => {
        const big = `${"- a fact worth keeping\n".repeat(50_000)}`;
        expect(big.length).toBeGreaterThan(1_000_000);
        const memory = loadMemory(await dirs({}, { "MEMORY.md": big, "later.md": "LATER" }));
        const text = memory.text ?? "";
        expect(Buffer.byteLength(text)).toBeLessThan(MEMORY_CAP_BYTES + 1024);
        expect(text).toMatch(/\[memory truncated: 1123 KB file, first 24 KB loaded\]/);
        expect(text).toContain("## .north/memory/later.md\n\n[memory truncated");
        expect(text).not.toContain("LATER");
        expect(memory.warnings.join("\n")).toContain(".north/memory/MEMORY.md is 1123 KB");
        expect(memory.files.map((f) => f.loadedBytes)).toEqual([MEMORY_CAP_BYTES, 0]);
    });

    it("skips a file that is not UTF-8 text with a warning, keeping the others", async () => {
        const memory = loadMemory(
            await dirs(
                {},
                { "MEMORY.md": "- good", "bad.md": Buffer.from([0x66, 0xff, 0xfe, 0x0a]) }
            )
        );
        expect(memory.text).toContain("- good");
        expect(memory.text).not.toContain("bad.md");
        expect(memory.warnings).toEqual([
            ".north/memory/bad.md is not UTF-8 text; it was not loaded into memory",
        ]);
    });

    it("does not follow a symlink out of the memory directory", async () => {
        const [user, project] = await dirs({ "MEMORY.md": "x" }, { "MEMORY.md": "- ok" });
        const secret = path.join(user!.dir, "..", "secret.txt");
        await fs.writeFile(secret, "TOKEN=hunter2");
        await fs.symlink(secret, path.join(project!.dir, "leak.md"));
        const loaded = loadMemory([project!]);
        expect(loaded.text).not.toContain("hunter2");
        expect(loaded.warnings).toEqual([
            ".north/memory/leak.md is a symlink to a file outside the repository; not read (copy the file in to use it)",
        ]);
    });
});

describe("appendMemoryNote", () => {
    it("creates the directory and index, then appends one line per note", async () => {
        const [, project] = await dirs({}, {});
        expect(appendMemoryNote(project!.dir, " Use pnpm\n please ")).toMatchObject({ ok: true });
        expect(appendMemoryNote(project!.dir, "Tests need Docker")).toMatchObject({ ok: true });
        expect(await fs.readFile(path.join(project!.dir, "MEMORY.md"), "utf8")).toBe(
            "# Memory\n\n- Use pnpm please\n- Tests need Docker\n"
        );
    });

    it("refuses an empty note and leaves nothing behind", async () => {
        const [, project] = await dirs({}, {});
        const result = appendMemoryNote(project!.dir, "   ");
        expect(result.ok).toBe(false);
        await expect(fs.stat(project!.dir)).rejects.toThrow();
    });
});
