/**
 * What the sandbox finds to protect, without running bubblewrap: the git
 * program files of every repository the project holds or belongs to, and the
 * host sockets still visible inside.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCommandSandbox } from "../../src/tools/sandbox/command-sandbox";
import { gitMounts } from "../../src/tools/sandbox/git-mounts";
import { hostSockets } from "../../src/tools/sandbox/host-sockets";

let base: string;
beforeEach(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), "north-sandbox-mounts-")));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): void {
    execFileSync("git", ["-c", "user.name=N", "-c", "user.email=n@example.com", ...args], {
        cwd,
        stdio: "ignore",
    });
}

describe("gitMounts", () => {
    it("covers the project's repository and one nested a folder below: existing files read-only, missing ones watched", () => {
        const root = path.join(base, "project");
        mkdirSync(path.join(root, "vendor"), { recursive: true });
        git(root, "init", "-q");
        git(path.join(root, "vendor"), "init", "-q");
        const mounts = gitMounts(root);
        expect(mounts.gitDirs).toEqual([path.join(root, ".git"), path.join(root, "vendor/.git")]);
        for (const dir of mounts.gitDirs) {
            expect(mounts.readOnly).toEqual(
                expect.arrayContaining(["config", "hooks", "info"].map((e) => path.join(dir, e)))
            );
            expect(mounts.watched).toEqual(
                expect.arrayContaining(
                    ["commondir", "config.worktree", "gitdir", "objects/info/alternates"].map((e) =>
                        path.join(dir, e)
                    )
                )
            );
        }
        expect(mounts.writable).toEqual([]);
    });

    it("in a linked worktree: its own git dir and the shared objects and refs writable, never a sibling worktree's", () => {
        const main = path.join(base, "main");
        mkdirSync(main);
        git(main, "init", "-q");
        writeFileSync(path.join(main, "a"), "a");
        git(main, "add", "a");
        git(main, "commit", "-qm", "a");
        const project = path.join(base, "project");
        git(main, "worktree", "add", "-q", "-b", "mine", project);
        git(main, "worktree", "add", "-q", "-b", "theirs", path.join(base, "sibling"));
        const mounts = gitMounts(project);
        const own = path.join(main, ".git/worktrees/project");
        expect(mounts.writable.sort()).toEqual(
            [own, ...["objects", "refs", "logs"].map((d) => path.join(main, ".git", d))].sort()
        );
        expect(mounts.commonDirs).toEqual([path.join(main, ".git")]);
        expect(mounts.readOnly).toEqual(
            expect.arrayContaining([
                path.join(project, ".git"),
                path.join(own, "commondir"),
                path.join(own, "gitdir"),
                path.join(main, ".git/config"),
            ])
        );
        expect(JSON.stringify(mounts)).not.toContain("worktrees/sibling");
    });
});

describe("hostSockets", () => {
    const servers: Server[] = [];
    afterEach(() => servers.splice(0).forEach((server) => server.close()));

    async function listen(socket: string): Promise<void> {
        mkdirSync(path.dirname(socket), { recursive: true });
        const server = createServer();
        servers.push(server);
        await new Promise<void>((resolve) => server.listen(socket, resolve));
    }

    it("lists bound sockets outside the replaced folders, and agents' sockets under $HOME", async () => {
        const home = path.join(base, "home");
        const project = path.join(base, "project");
        const replaced = path.join(base, "tmp");
        const sockets = {
            project: path.join(project, "dev.sock"),
            inReplaced: path.join(replaced, "tmux-0", "default"),
            agent: path.join(home, ".ssh", "sockets", "git@host:22"),
        };
        for (const socket of Object.values(sockets)) await listen(socket);
        // /proc/net/unix as the kernel writes it: the path is the last column.
        const proc = path.join(base, "unix");
        writeFileSync(
            proc,
            "Num       RefCount Protocol Flags    Type St Inode Path\n" +
                `0000: 00000002 00000000 00010000 0001 01 101 ${sockets.project}\n` +
                `0000: 00000002 00000000 00010000 0001 01 102 ${sockets.inReplaced}\n` +
                "0000: 00000002 00000000 00010000 0001 01 103 @abstract\n" +
                "0000: 00000002 00000000 00010000 0001 01 104 /gone/since.sock\n"
        );
        const found = hostSockets({
            home,
            replaced: [replaced],
            shown: [project],
            procNetUnix: proc,
        });
        expect(found.sort()).toEqual([sockets.agent, sockets.project].sort());
    });
});

describe("the macOS run (profile text; untested on a Mac)", () => {
    it("denies creating git's and North's missing files and replacing a protected link, keeps .git writable, drops socket variables", () => {
        const root = path.join(base, "project");
        mkdirSync(path.join(root, "shared"), { recursive: true });
        git(root, "init", "-q");
        writeFileSync(path.join(root, "shared/mcp.json"), "{}");
        symlinkSync("shared/mcp.json", path.join(root, ".mcp.json"));
        const session = path.join(base, "session");
        const sandbox = createCommandSandbox(
            { network: false, writable: [] },
            { platform: "darwin", home: path.join(base, "home") }
        );
        sandbox.createSessionFolders(session);
        const run = sandbox.prepare(
            ["bash", "-c", "true"],
            { PATH: "/usr/bin", SSH_AUTH_SOCK: "/tmp/agent", DISPLAY: ":0" },
            { root, sessionDir: session, cwd: root }
        );
        expect(run.file).toBe("/usr/bin/sandbox-exec");
        const profile = run.args[1]!;
        const deny = (rel: string): string =>
            `(deny file-write* (subpath "${path.join(root, rel)}"))`;
        for (const rel of [
            ".git/commondir",
            ".git/objects/info/alternates",
            ".north",
            ".mcp.json",
        ]) {
            expect(profile).toContain(deny(rel));
        }
        expect(profile).not.toContain(deny(".git"));
        expect(run.env).toEqual({
            PATH: "/usr/bin",
            TMPDIR: path.join(session, "tmp"),
            XDG_RUNTIME_DIR: path.join(session, "runtime"),
        });
    });
});
