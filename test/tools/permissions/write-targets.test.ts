/**
 * The command judge with the session's real rules: Edit rules as globs, the
 * write judge over paths on disk, and deny rules that name a program by path.
 */
import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { judgeCommand } from "../../../src/tools/permissions/command-judge";
import { PermissionRules } from "../../../src/tools/permissions/rules";
import {
    createWriteTargetJudge,
    protectedWriteOf,
} from "../../../src/tools/permissions/write-targets";
import { type TempRepo, makeOutsideDir, makeRepo } from "../fixtures";

let repo: TempRepo;
let home: Awaited<ReturnType<typeof makeOutsideDir>>;
beforeEach(async () => {
    repo = await makeRepo({ ".env": "SECRET=1\n", "src/a.ts": "", ".git/config": "" });
    home = await makeOutsideDir();
});
afterEach(async () => {
    await repo.cleanup();
    await home.cleanup();
});

function rulesOf(permissions: { allow?: string[]; deny?: string[]; ask?: string[] }) {
    const rules = new PermissionRules(
        { projectRoot: repo.root, home: home.dir },
        new Set(["Bash", "Edit"])
    );
    expect(rules.addSource({ source: "settings.json", permissions })).toEqual([]);
    return rules;
}

/** Judges `command` as the executor does, with edits auto-accepted (as under --allow-edits). */
async function judge(command: string, rules: PermissionRules) {
    const judgeWrite = createWriteTargetJudge(repo.root, {
        permissionRules: rules,
        isEditsAutoAccepted: () => true,
    });
    return judgeCommand(command, rules.commandRules(), judgeWrite, {
        cwd: repo.root,
        home: home.dir,
        editDenyGlobs: rules.pathGlobs("deny", "edit"),
        shellEnv: {},
    });
}

describe("writes the Edit rules judge", () => {
    it("refuses a target whose pattern could name a denied file, naming the rule", async () => {
        const rules = rulesOf({ allow: ["Bash(echo:*)"], deny: ["Edit(./.env)"] });
        for (const command of [
            "echo x > .[e]nv",
            "echo x > .[!a]nv",
            "echo x > .e?v",
            "echo x > .{e,f}nv",
            "echo x > ./src/../.[e]nv",
            "cd src && echo x > ../.e*",
        ]) {
            expect(await judge(command, rules), command).toMatchObject({
                decision: "deny",
                rule: "Edit(./.env)",
            });
        }
        expect(await judge("shopt -s nocaseglob; echo x > .[E]NV", rules)).toMatchObject({
            decision: "deny",
        });
        expect(await judge("echo x > src/[a].log", rules)).toMatchObject({ decision: "ask" });
        expect(await judge("echo x > src/a.log", rules)).toMatchObject({ decision: "allow" });
    });

    it("refuses a pattern that reaches a denied folder through a symlink on disk", async () => {
        symlinkSync(path.join(repo.root, "src"), path.join(repo.root, "link"));
        const rules = rulesOf({ allow: ["Bash(echo:*)"], deny: ["Edit(./src/**)"] });
        expect(await judge("echo x > [l]ink/b.ts", rules)).toMatchObject({ decision: "deny" });
    });

    it("asks, never allows, a pattern into git's internals or protected configuration", async () => {
        const rules = rulesOf({ allow: ["Bash(echo:*)"] });
        for (const command of [
            "echo '[core]' >> .[g]it/config",
            "echo x > .[v]scode/tasks.json",
            "ln -s .git g; echo x > [g]/config",
        ]) {
            expect(await judge(command, rules), command).toMatchObject({ decision: "ask" });
        }
    });

    it("lets a pattern match hidden names when the shell's environment may turn dotglob on", async () => {
        const rules = rulesOf({ allow: ["Bash(cat:*)"] });
        const judgeWrite = createWriteTargetJudge(repo.root, {
            permissionRules: rules,
            isEditsAutoAccepted: () => true,
        });
        const withEnv = (shellEnv: Record<string, string>) =>
            judgeCommand("cat */config", rules.commandRules(), judgeWrite, {
                cwd: repo.root,
                shellEnv,
            });
        expect(await withEnv({})).toMatchObject({ decision: "allow" });
        expect(await withEnv({ BASHOPTS: "dotglob:extglob" })).toMatchObject({ decision: "ask" });
        expect(await withEnv({ BASH_ENV: "/home/u/.bashenv" })).toMatchObject({ decision: "ask" });
    });

    it("asks about a write or read after a command that makes a symlink, even when both are allowed", async () => {
        const rules = rulesOf({ allow: ["Bash(ln:*)", "Bash(echo:*)", "Bash(cat:*)"] });
        expect(await judge("ln -s src g", rules)).toMatchObject({ decision: "allow" });
        // A link named .git may be made inside g.
        expect(await judge("ln -s .git g", rules)).toMatchObject({ decision: "ask" });
        for (const command of [
            "ln -s .git g; echo x > g/config",
            "ln -s .git g && echo x > [g]/config",
            "ln -s .git g | cat g/config",
        ]) {
            expect(await judge(command, rules), command).toMatchObject({ decision: "ask" });
        }
        expect(await judge("echo x > a.txt; ln -s a.txt b.txt", rules)).toMatchObject({
            decision: "allow",
        });
    });

    it("refuses a target only known when it runs while an Edit rule may cover it", async () => {
        const rules = rulesOf({ allow: ["Bash(echo:*)"], deny: ["Edit(~/.bashrc)"] });
        for (const command of ['echo x >> "$HOME/.bashrc"', 'echo x > "$F"']) {
            expect(await judge(command, rules), command).toMatchObject({
                decision: "deny",
                rule: "Edit(~/.bashrc)",
            });
        }
        expect(await judge('echo x > "$D/notes.txt"', rules)).toMatchObject({ decision: "ask" });
        expect(await judge('echo x > "$F"', rulesOf({ allow: ["Bash(echo:*)"] }))).toMatchObject({
            decision: "ask",
        });
    });

    it("reads `~` as the home folder, so an Edit rule on a home file holds", async () => {
        const rules = rulesOf({ allow: ["Bash(echo:*)"], deny: ["Edit(~/.bashrc)"] });
        const judgeWrite = createWriteTargetJudge(repo.root, {
            permissionRules: rules,
            isEditsAutoAccepted: () => true,
        });
        expect(judgeWrite("~/.bashrc", repo.root)).toBe("deny");
        expect(await judge("echo x >> ~/.bashrc", rules)).toMatchObject({ decision: "deny" });
        expect(await judge("echo x >> ~/.bash[r]c", rules)).toMatchObject({ decision: "deny" });
    });
});

describe("deny rules that name a program", () => {
    it("hold for the program by path and by name, either way round", async () => {
        for (const deny of ["Bash(rm:*)", "Bash(/bin/rm:*)", "Bash(/usr/bin/rm *)"]) {
            const rules = rulesOf({ deny: [deny] });
            for (const command of [
                "rm x",
                "/bin/rm x",
                "/usr/bin/../bin/rm x",
                "/bin/r[m] -f x",
                "r\\m x",
                "$'\\x72'm x",
            ]) {
                expect(await judge(command, rules), `${deny}: ${command}`).toMatchObject({
                    decision: "deny",
                });
            }
            expect(await judge("/bin/l[s] x", rules)).toMatchObject({ decision: "ask" });
        }
    });

    it("force a review of text bash evaluates, which may hide a denied command", async () => {
        const command = "x='a[$(rm -f v)]'; echo $((x))";
        expect(
            await judge(command, rulesOf({ allow: ["Bash(echo:*)"], deny: ["Bash(rm:*)"] }))
        ).toMatchObject({ decision: "ask", forced: true });
        expect(await judge(command, rulesOf({ allow: ["Bash(echo:*)"] }))).toMatchObject({
            decision: "ask",
            forced: false,
        });
    });
});

describe("protectedWriteOf: no standing answer for a command that writes protected files", () => {
    it("names git's internals, protected configuration and targets only known when it runs", async () => {
        for (const command of [
            "echo '[core]' >> .git/config",
            "cd src && echo x > ../.git/hooks/pre-commit",
            "echo '{}' > .vscode/tasks.json",
            "tee .north/settings.json < x",
            "echo x > .[g]it/config",
            "echo x > $TARGET",
        ]) {
            expect(
                await protectedWriteOf(command, repo.root, repo.root, home.dir),
                command
            ).toBeDefined();
        }
        expect(
            await protectedWriteOf("echo '[core]' >> .git/config", repo.root, repo.root, home.dir)
        ).toContain(".git/config");
    });

    it("leaves ordinary commands and writes alone", async () => {
        for (const command of ["npm test", "echo x > out.txt", "tee src/a.ts < x", "ls .git"]) {
            expect(
                await protectedWriteOf(command, repo.root, repo.root, home.dir),
                command
            ).toBeUndefined();
        }
    });
});
