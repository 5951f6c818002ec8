import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverAgentDefinitions } from "../../src/project/agent-definitions";
import { loadProjectContext } from "../../src/project/instruction-files";
import { discoverCustomCommands } from "../../src/project/custom-commands";
import { loadMemory, memoryDirs } from "../../src/project/memory";
import { discoverSkills, loadSkillBody } from "../../src/project/skills";
import { readProjectConfig } from "../../src/storage/trust";
import { type GuardedFifo, guardedFifo } from "../kit/fifo-guard";

const SECRET = "sk-ant-SECRET-FROM-OUTSIDE";
let base: string;
let repo: string;
let user: string;
let secretFile: string;
const guards: GuardedFifo[] = [];

beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "north-contain-")));
    repo = join(base, "repo");
    user = join(base, "home-north");
    secretFile = join(base, "secret.md");
    mkdirSync(repo);
    mkdirSync(user);
    writeFileSync(secretFile, `---\nname: leak\ndescription: leak\n---\n${SECRET}\n`);
});
afterEach(() => {
    for (const guard of guards.splice(0)) guard.stop();
    rmSync(base, { recursive: true, force: true });
});

function put(path: string, text: string): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
}
function link(target: string, path: string): void {
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync(target, path);
}
function fifo(path: string): GuardedFifo {
    mkdirSync(dirname(path), { recursive: true });
    const guard = guardedFifo(path);
    guards.push(guard);
    return guard;
}

describe("AGENTS.md / CLAUDE.md", () => {
    it("a repo CLAUDE.md symlinked out of the repository is not read, and the warning says why", () => {
        link(secretFile, join(repo, "CLAUDE.md"));
        // A symlink that stays inside the repository is fine.
        put(join(repo, "docs", "rules.md"), "Use pnpm.");
        link("docs/rules.md", join(repo, "AGENTS.md"));
        const context = loadProjectContext(repo);
        expect(context.text).toContain("Use pnpm.");
        expect(context.text).not.toContain(SECRET);
        expect(context.files.map((f) => f.label)).toEqual(["AGENTS.md"]);
        expect(context.warnings).toEqual([
            "CLAUDE.md is a symlink to a file outside the repository; not read (copy the file in to use it)",
        ]);
    });

    it("above the repo root AGENTS.md may be a symlink (the user's dotfiles); at the root it may not", () => {
        const nested = join(repo, "inner");
        put(join(base, "dotfiles", "AGENTS.md"), "Parent rules via dotfiles.");
        link(join(base, "dotfiles", "AGENTS.md"), join(repo, "AGENTS.md"));
        link(join(base, "dotfiles", "AGENTS.md"), join(nested, "AGENTS.md"));
        const context = loadProjectContext(nested);
        expect(context.text).toContain("Parent rules via dotfiles.");
        expect(context.files.map((f) => f.label)).toEqual([join(repo, "AGENTS.md")]);
        expect(context.warnings).toEqual([
            "AGENTS.md is a symlink to a file outside the repository; not read (copy the file in to use it)",
        ]);
    });

    it("a FIFO named AGENTS.md is refused at once, with a reason", () => {
        const guard = fifo(join(repo, "AGENTS.md"));
        const context = loadProjectContext(repo);
        expect(guard.fired()).toBe(false);
        expect(context.warnings).toContain("AGENTS.md is a FIFO; not read");
    });
});

describe("skills", () => {
    it("a project SKILL.md symlinked outside is skipped with a reason; a user one may be a symlink", async () => {
        const projectRoot = join(repo, ".north", "skills");
        link(secretFile, join(projectRoot, "leak", "SKILL.md"));
        put(
            join(base, "dotfiles", "SKILL.md"),
            "---\nname: mine\ndescription: my skill\n---\nMine."
        );
        link(join(base, "dotfiles", "SKILL.md"), join(user, "skills", "mine", "SKILL.md"));
        const found = await discoverSkills([projectRoot, join(user, "skills")], repo);
        expect(found.skills.map((s) => s.name)).toEqual(["mine"]);
        expect(found.warnings).toContain(
            `${join(projectRoot, "leak", "SKILL.md")} is a symlink to a file outside the repository; not read (copy the file in to use it)`
        );
    });

    it("a skill whose SKILL.md is swapped for a symlink after discovery is not loaded", async () => {
        const file = join(repo, ".north", "skills", "s", "SKILL.md");
        put(file, "---\nname: s\ndescription: d\n---\nBody.");
        const [skill] = (await discoverSkills([join(repo, ".north", "skills")], repo)).skills;
        rmSync(file);
        symlinkSync(secretFile, file);
        await expect(loadSkillBody(skill!)).rejects.toThrow(/outside the repository/);
    });

    it("a FIFO SKILL.md is refused at once", async () => {
        const guard = fifo(join(repo, ".north", "skills", "f", "SKILL.md"));
        const found = await discoverSkills([join(repo, ".north", "skills")], repo);
        expect(guard.fired()).toBe(false);
        expect(found.skills).toEqual([]);
        expect(found.warnings.join("\n")).toContain("SKILL.md is a FIFO; not read");
    });
});

describe("custom commands and agent definitions", () => {
    it("project commands symlinked outside or FIFOs are skipped with reasons; user ones may be symlinks", async () => {
        const projectDir = join(repo, ".north", "commands");
        link(secretFile, join(projectDir, "leak.md"));
        const guard = fifo(join(projectDir, "hang.md"));
        put(join(projectDir, "ok.md"), "Review $ARGUMENTS");
        link(secretFile, join(user, "commands", "mine.md"));
        const found = await discoverCustomCommands(
            [
                { dir: projectDir, scope: "project" },
                { dir: join(user, "commands"), scope: "user" },
            ],
            repo
        );
        expect(guard.fired()).toBe(false);
        expect(found.commands.map((c) => c.name)).toEqual(["ok", "mine"]);
        expect(found.warnings).toContain(
            `${join(projectDir, "leak.md")} is a symlink to a file outside the repository; not read (copy the file in to use it)`
        );
        expect(found.warnings).toContain(`${join(projectDir, "hang.md")} is a FIFO; not read`);
    });

    it("project agent definitions symlinked outside or FIFOs are skipped with reasons", async () => {
        const projectDir = join(repo, ".claude", "agents");
        link(secretFile, join(projectDir, "leak.md"));
        const guard = fifo(join(projectDir, "hang.md"));
        put(join(projectDir, "ok.md"), "---\nname: ok\ndescription: fine\n---\nHelp.");
        const found = await discoverAgentDefinitions(
            [{ dir: projectDir, scope: "project" }],
            true,
            repo
        );
        expect(guard.fired()).toBe(false);
        expect(found.agents.map((a) => a.name)).toEqual(["ok"]);
        expect(JSON.stringify(found.agents)).not.toContain(SECRET);
        expect(found.warnings).toEqual([
            `${join(projectDir, "hang.md")} is a FIFO; not read`,
            `${join(projectDir, "leak.md")} is a symlink to a file outside the repository; not read (copy the file in to use it)`,
        ]);
    });
});

describe("project memory", () => {
    it("a .north symlinked out of the repository does not bring outside notes into memory", () => {
        put(join(base, "elsewhere", "memory", "MEMORY.md"), SECRET);
        link(join(base, "elsewhere"), join(repo, ".north"));
        const memory = loadMemory(memoryDirs(join(user, "data"), repo));
        expect(memory.text ?? "").not.toContain(SECRET);
        expect(memory.warnings).toEqual([
            ".north/memory/MEMORY.md is a symlink to a file outside the repository; not read (copy the file in to use it)",
        ]);
    });
});

describe("trust-gated settings files", () => {
    it("a FIFO .mcp.json or a settings file symlinked outside is unreadable, not waited on or read", () => {
        const guard = fifo(join(repo, ".mcp.json"));
        link(secretFile, join(repo, ".north", "settings.json"));
        const snapshot = readProjectConfig(repo);
        expect(guard.fired()).toBe(false);
        expect(snapshot.files).toEqual({});
        expect(snapshot.unreadable).toEqual({
            ".mcp.json": ".mcp.json is a FIFO; not read",
            ".north/settings.json":
                ".north/settings.json is a symlink to a file outside the repository; not read (copy the file in to use it)",
        });
        expect(snapshot.fingerprint).not.toBeNull();
    });
});
