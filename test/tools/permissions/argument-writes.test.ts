/**
 * Files a command writes through its arguments (`tee F`, `cp a F`, `sed -i`),
 * judged with the session's real rules over a project on disk, as the
 * executor judges them: edits not auto-accepted, only the Bash allow rules.
 */
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { argumentWrites } from "../../../src/tools/permissions/argument-writes";
import { judgeCommand } from "../../../src/tools/permissions/command-judge";
import { type Word, literalWord } from "../../../src/tools/permissions/command-words";
import { PermissionRules } from "../../../src/tools/permissions/rules";
import { createWriteTargetJudge } from "../../../src/tools/permissions/write-targets";
import { type TempRepo, makeOutsideDir, makeRepo } from "../fixtures";

let repo: TempRepo;
let home: Awaited<ReturnType<typeof makeOutsideDir>>;
beforeEach(async () => {
    repo = await makeRepo({
        ".env": "SECRET=1\n",
        "src/a.ts": "",
        ".git/config": "",
        "evil/.env": "EVIL=1\n",
        "evil/readme.txt": "",
        "cloned/.git/config": "",
        "config/.env": "",
    });
    home = await makeOutsideDir();
});
afterEach(async () => {
    await repo.cleanup();
    await home.cleanup();
});

const WRITERS = ["tee", "cp", "mv", "install", "ln", "rsync", "sed", "perl", "touch", "rm", "sort"];

function rulesOf(permissions: { allow?: string[]; deny?: string[]; ask?: string[] }) {
    const rules = new PermissionRules(
        { projectRoot: repo.root, home: home.dir },
        new Set(["Bash", "Edit"])
    );
    expect(rules.addSource({ source: "settings.json", permissions })).toEqual([]);
    return rules;
}

async function judge(command: string, rules: PermissionRules) {
    const judgeWrite = createWriteTargetJudge(repo.root, {
        permissionRules: rules,
        isEditsAutoAccepted: () => false,
    });
    return judgeCommand(command, rules.commandRules(), judgeWrite, {
        cwd: repo.root,
        home: home.dir,
        editDenyGlobs: rules.pathGlobs("deny", "edit"),
        shellEnv: {},
    });
}

const allowAll = WRITERS.map((name) => `Bash(${name}:*)`);

describe("an Edit deny rule over files written through arguments", () => {
    it("refuses every writing command's way of naming the file", async () => {
        const rules = rulesOf({ allow: allowAll, deny: ["Edit(./.env)"] });
        for (const command of [
            "tee .env",
            "tee -a -- out.log .env",
            "cp x .env",
            "cp -t . evil/.env",
            "cp --target-dir=. evil/.env",
            "cp evil/.env .",
            "mv .env gone",
            "install -m600 x .env",
            "ln -sf x .env",
            "rsync -a x .env",
            "sed -i s/a/b/ .env",
            "sed -ni.bak p .env",
            "perl -pi -e s/a/b/ .env",
            "touch .env",
            "rm -f .env",
            "cp x .[e]nv",
            "cp --parents ../x/.env .",
        ]) {
            const verdict = await judge(command, rules);
            expect(verdict, command).toMatchObject({ decision: "deny" });
            expect(verdict.decision === "deny" && verdict.reason, command).toMatch(
                /\.(env|\[e\]nv)/
            );
        }
    });

    it("refuses a folder copied or removed as a whole when a denied file is below it", async () => {
        const rules = rulesOf({
            allow: allowAll,
            deny: ["Edit(./.env)", "Edit(./config/.env)"],
        });
        for (const command of [
            "cp -r evil/. .",
            "cp -a evil/ .",
            "rsync -a evil/ .",
            "rm -r config",
        ]) {
            expect(await judge(command, rules), command).toMatchObject({ decision: "deny" });
        }
        // Contents only known when it runs: refused while they could hold a denied file.
        expect(await judge("mkdir -p n && cp -r n/. .", rules)).toMatchObject({
            decision: "deny",
        });
        expect(await judge("cp -r src build", rules)).toMatchObject({ decision: "allow" });
    });

    it("lists a folder reached through a link, and removes by path", async () => {
        const { symlinkSync } = await import("node:fs");
        symlinkSync(path.join(repo.root, "evil"), path.join(repo.root, "link"));
        const rules = rulesOf({ allow: allowAll, deny: ["Edit(./.env)", "Edit(./config/.env)"] });
        for (const command of ["rsync -a link/ .", "cp -r link/. .", "mv config old"]) {
            expect(await judge(command, rules), command).toMatchObject({ decision: "deny" });
        }
        expect(await judge("rm -rf evil", rules)).toMatchObject({ decision: "allow" });
    });

    it("matches by path a folder with too many files to judge one by one, and asks", async () => {
        const { mkdirSync, writeFileSync } = await import("node:fs");
        mkdirSync(path.join(repo.root, "big"));
        for (let i = 0; i <= 5000; i++) writeFileSync(path.join(repo.root, "big", `f${i}`), "");
        writeFileSync(path.join(repo.root, "big", ".env"), "");
        const rules = rulesOf({ allow: allowAll, deny: ["Edit(./.env)"] });
        expect(await judge("cp -r big/. .", rules)).toMatchObject({ decision: "deny" });
        expect(await judge("cp -r big build", rules)).toMatchObject({
            decision: "ask",
            reason: expect.stringContaining("too many to judge one by one"),
        });
        expect(await judge("rm -rf big", rules)).toMatchObject({ decision: "allow" });
    });

    it("holds through a symlink that leads to the denied file", async () => {
        await repo.write("links/", "");
        const { symlinkSync } = await import("node:fs");
        symlinkSync(path.join(repo.root, ".env"), path.join(repo.root, "links", "settings"));
        const rules = rulesOf({ allow: allowAll, deny: ["Edit(./.env)"] });
        expect(await judge("cp x links/settings", rules)).toMatchObject({ decision: "deny" });
    });
});

describe("other files written through arguments", () => {
    it("stay allowed under the command's allow rule when no rule names them", async () => {
        const rules = rulesOf({ allow: allowAll, deny: ["Edit(./.env)"] });
        for (const command of [
            "tee out.log",
            "cp a b",
            "cp -r src build",
            "mv src/a.ts src/b.ts",
            "sed -i s/a/b/ src/a.ts",
            "touch new.txt",
            "sort -o sorted.txt src/a.ts",
        ]) {
            expect(await judge(command, rules), command).toMatchObject({ decision: "allow" });
        }
    });

    it("are asked about in git's internals, protected configuration, outside the project or under an Edit ask rule", async () => {
        const rules = rulesOf({ allow: allowAll, ask: ["Edit(./package.json)"] });
        for (const command of [
            "cp x .git/hooks/pre-commit",
            "cp -r cloned build",
            "cp -a cloned/. .",
            "tee .vscode/tasks.json",
            `cp x ${home.dir}/.bashrc`,
            "sed -i s/a/b/ package.json",
        ]) {
            expect(await judge(command, rules), command).toMatchObject({ decision: "ask" });
        }
    });

    it("are asked about after a command that may put a symlink in place", async () => {
        const rules = rulesOf({ allow: [...allowAll, "Bash(tar:*)", "Bash(echo:*)"] });
        for (const command of [
            "mv evil g; echo x > g/config",
            "cp -a evil g && echo x > g/config",
            "tar -xf a.tar; echo x > g/config",
            "rsync -a evil g; echo x > g/config",
        ]) {
            expect(await judge(command, rules), command).toMatchObject({ decision: "ask" });
        }
    });
});

describe("reading which arguments a command writes", () => {
    const words = (text: string): Word[] => text.split(" ").map(literalWord);
    const targets = (text: string) => argumentWrites(words(text)).targets.map((w) => w.value);

    it("reads options GNU-style: combined, glued, abbreviated, `=` and `--`", () => {
        expect(targets("cp -fv a b")).toEqual(["b", "b/a"]);
        expect(targets("cp -tdir a")).toEqual(["dir", "dir/a"]);
        expect(targets("cp --target=dir a")).toEqual(["dir", "dir/a"]);
        expect(targets("cp a -t dir")).toEqual(["dir", "dir/a"]);
        expect(targets("cp -T a b")).toEqual(["b"]);
        expect(targets("cp -- -t b")).toEqual(["b", "b/-t"]);
        expect(targets("mv a b")).toEqual(["b", "a", "b/a"]);
        expect(targets("sed -e s/a/b/ -i f g")).toEqual(["f", "g"]);
        expect(targets("sed s/a/b/ f")).toEqual([]);
        expect(targets("sed -in s/a/b/ f")).toEqual(["f"]);
        expect(targets("perl -pi.bak -e 1 f")).toEqual(["f"]);
        expect(targets("perl -ne 1 f")).toEqual([]);
        expect(targets("perl -lpi -e 1 f")).toEqual(["f"]);
        expect(targets("perl -0777pi -e 1 f")).toEqual(["f"]);
        expect(targets("cp --parents a/b/f d")).toEqual(["d", "d/a/b/f"]);
        expect(targets("dd if=a of=b")).toEqual(["b"]);
        expect(targets("uniq -c a b")).toEqual(["b"]);
        expect(targets("ln -s a")).toEqual([".", "./a"]);
    });

    it("counts every operand as written when an option is not known", () => {
        expect(targets("cp --frobnicate a b")).toEqual(["a", "b"]);
        expect(targets("tee -Q a")).toEqual(["a"]);
        const dynamic = argumentWrites([
            literalWord("cp"),
            { value: "$O", dynamic: true },
            literalWord("a"),
            literalWord("b"),
        ]);
        expect(dynamic.targets.map((w) => w.value)).toEqual(["$O", "a", "b"]);
    });
});
