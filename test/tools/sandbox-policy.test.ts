/**
 * The sandbox's pure parts: who may loosen it, the bubblewrap arguments, the
 * macOS profile (untested on a Mac: its text is what is checked here), the
 * "the sandbox blocked this" note and the protected mounts.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sandboxBlockedNote } from "../../src/tools/sandbox/blocked-note";
import { bwrapArgs } from "../../src/tools/sandbox/bwrap";
import { resolveSandboxPolicy } from "../../src/tools/sandbox/policy";
import { protectedMounts } from "../../src/tools/sandbox/protected-mounts";
import { sbplString, seatbeltProfile } from "../../src/tools/sandbox/seatbelt";

const HOME = "/home/ann";
const USER_FILE = "/home/ann/.config/north/config.json";
const PROJECT_FILE = "/repo/.north/settings.json";

describe("resolveSandboxPolicy", () => {
    it("is off unless the flag, the user or the project turns it on", () => {
        expect(resolveSandboxPolicy({ project: [], flag: false, home: HOME }).policy).toBeNull();
        expect(resolveSandboxPolicy({ project: [], flag: true, home: HOME }).policy).toEqual({
            network: false,
            writable: [],
        });
        const user = { value: true, file: USER_FILE };
        expect(resolveSandboxPolicy({ user, project: [], flag: false, home: HOME }).policy).toEqual(
            { network: false, writable: [] }
        );
        const project = [{ value: true, file: PROJECT_FILE }];
        expect(resolveSandboxPolicy({ project, flag: false, home: HOME }).policy).not.toBeNull();
    });

    it("takes the network and extra folders from the user, ~ expanded, bad entries reported", () => {
        const { policy, warnings } = resolveSandboxPolicy({
            user: {
                value: { network: true, writable: ["~/.cache/npm", "/opt/x/", "rel/dir", "/"] },
                file: USER_FILE,
            },
            project: [],
            flag: false,
            home: HOME,
        });
        expect(policy).toEqual({ network: true, writable: ["/home/ann/.cache/npm", "/opt/x/"] });
        expect(warnings).toEqual([
            `${USER_FILE}: sandbox.writable "rel/dir" must be an absolute path or start with ~/; ignored`,
            `${USER_FILE}: sandbox.writable "/" would make the sandbox pointless; ignored`,
        ]);
    });

    it("keeps the user's shape when only --sandbox turns it on", () => {
        const { policy } = resolveSandboxPolicy({
            user: { value: { enabled: false, network: true }, file: USER_FILE },
            project: [],
            flag: true,
            home: HOME,
        });
        expect(policy).toEqual({ network: true, writable: [] });
    });

    it("never lets a project turn it off, open the network or add folders", () => {
        const { policy, warnings } = resolveSandboxPolicy({
            user: { value: true, file: USER_FILE },
            project: [
                { value: false, file: PROJECT_FILE },
                {
                    value: { enabled: false, network: true, writable: ["/home/ann"] },
                    file: "/repo/.north/settings.local.json",
                },
            ],
            flag: false,
            home: HOME,
        });
        expect(policy).toEqual({ network: false, writable: [] });
        expect(warnings).toEqual([
            `${PROJECT_FILE}: a project may turn the sandbox on, not turn it off; that part is ignored (set it in ~/.config/north/config.json)`,
            "/repo/.north/settings.local.json: a project may turn the sandbox on, not turn it off or allow the network or add writable folders; that part is ignored (set it in ~/.config/north/config.json)",
        ]);
    });

    it("lets a project take the network away", () => {
        const { policy, warnings } = resolveSandboxPolicy({
            user: { value: { network: true }, file: USER_FILE },
            project: [{ value: { network: false }, file: PROJECT_FILE }],
            flag: false,
            home: HOME,
        });
        expect(policy).toEqual({ network: false, writable: [] });
        expect(warnings).toEqual([]);
    });
});

describe("bwrapArgs", () => {
    const layout = {
        root: "/work/repo",
        privateFolders: [
            ["/tmp/north-shell-1/tmp", "/tmp"],
            ["/tmp/north-shell-1/shm", "/dev/shm"],
            ["/tmp/north-shell-1/runtime", "/run/user/1000"],
        ] as const,
        writable: ["/home/ann/.cache/npm"],
        gitDirs: ["/work/repo/.git"],
        readOnly: ["/work/repo/.north", "/work/repo/.git/config"],
        hidden: ["/run"],
        shownReadOnly: [],
        sockets: ["/work/repo/dev.sock"],
        network: false,
        cwd: "/work/repo/src",
    };

    it("mounts / read-only, the session's folders over /tmp and the like, the writable places, then protected config read-only and sockets covered", () => {
        expect(bwrapArgs(layout)).toEqual([
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--unshare-net",
            "--unshare-pid",
            "--die-with-parent",
            "--cap-drop", "ALL",
            "--tmpfs", "/run",
            "--bind", "/tmp/north-shell-1/tmp", "/tmp",
            "--bind", "/tmp/north-shell-1/shm", "/dev/shm",
            "--bind", "/tmp/north-shell-1/runtime", "/run/user/1000",
            "--bind", "/work/repo", "/work/repo",
            "--bind", "/home/ann/.cache/npm", "/home/ann/.cache/npm",
            "--bind", "/work/repo/.git", "/work/repo/.git",
            "--ro-bind", "/work/repo/.north", "/work/repo/.north",
            "--ro-bind", "/work/repo/.git/config", "/work/repo/.git/config",
            "--ro-bind", "/dev/null", "/work/repo/dev.sock",
            "--chdir", "/work/repo/src",
            "--",
        ]); // prettier-ignore
    });

    it("keeps the network namespace only when the network is allowed, with DNS from /run", () => {
        const args = bwrapArgs({ ...layout, network: true });
        expect(args).not.toContain("--unshare-net");
        expect(args).toContain("--unshare-pid");
        expect(args.join(" ")).toContain(
            "--tmpfs /run --ro-bind-try /run/systemd/resolve /run/systemd/resolve --bind"
        );
    });
});

describe("seatbeltProfile (macOS; untested on a Mac, the generated text is checked)", () => {
    const layout = {
        root: "/Users/ann/repo",
        tempDir: "/private/var/folders/x/north-shell-1",
        writable: ["/Users/ann/.npm"],
        readOnly: ["/Users/ann/repo/.north", "/Users/ann/repo/.git/config"],
        unwritable: ["/Users/ann/repo/.git/commondir", "/Users/ann/repo/.mcp.json"],
        network: false,
    };

    it("denies writes except inside the writable places, minus protected config", () => {
        const profile = seatbeltProfile(layout);
        expect(profile).toContain("(version 1)\n(allow default)\n(deny file-write*)\n");
        expect(profile).toContain(
            [
                "(allow file-write*",
                "    (require-all",
                "        (require-any",
                '            (subpath "/Users/ann/repo")',
                '            (subpath "/private/var/folders/x/north-shell-1")',
                '            (subpath "/Users/ann/.npm")',
                "        )",
                '        (require-not (subpath "/Users/ann/repo/.north"))',
                '        (require-not (subpath "/Users/ann/repo/.git/config"))',
                "    )",
                ")",
            ].join("\n")
        );
        expect(profile).toContain('(literal "/dev/null")');
    });

    it("denies IP networking unless allowed", () => {
        expect(seatbeltProfile(layout)).toContain("(deny network-outbound (remote ip))");
        expect(seatbeltProfile({ ...layout, network: true })).not.toContain("(remote ip)");
    });

    it("without the network still lets a server listen on loopback and the next command reach it, after the denials", () => {
        const profile = seatbeltProfile(layout);
        const denied = profile.indexOf("(deny network-outbound (remote ip))");
        for (const rule of [
            '(allow network-bind (local ip "localhost:*"))',
            '(allow network-inbound (local ip "localhost:*"))',
            '(allow network-outbound (remote ip "localhost:*"))',
        ]) {
            // Seatbelt's later rule wins: each allowance must follow the denials.
            expect(profile.indexOf(rule)).toBeGreaterThan(denied);
        }
    });

    it("denies creating protected files and git program files that do not exist yet", () => {
        expect(seatbeltProfile(layout)).toContain(
            '(deny file-write* (subpath "/Users/ann/repo/.git/commondir"))\n' +
                '(deny file-write* (subpath "/Users/ann/repo/.mcp.json"))\n'
        );
    });

    it("denies connecting to Unix sockets outside the project and the session's folder", () => {
        const profile = seatbeltProfile(layout);
        expect(profile).toContain(
            [
                "(deny network-outbound (remote unix-socket))",
                "(allow network-outbound (remote unix-socket",
                '    (path-regex #"^/Users/ann/repo(/|$)")',
                '    (path-regex #"^/private/var/folders/x/north-shell-1(/|$)")',
                "))",
            ].join("\n")
        );
        expect(profile).not.toContain("mDNSResponder");
        // Name lookups go through mDNSResponder's socket: kept when the network is.
        expect(seatbeltProfile({ ...layout, network: true })).toContain(
            '(path-literal "/private/var/run/mDNSResponder")'
        );
    });

    it("escapes quotes and backslashes so a path cannot end the string and add a rule", () => {
        expect(sbplString('/tmp/a"b\\c')).toBe('"/tmp/a\\"b\\\\c"');
        const profile = seatbeltProfile({ ...layout, root: '/x") (allow file-write* (subpath "/' });
        expect(profile).toContain('(subpath "/x\\") (allow file-write* (subpath \\"/")');
    });
});

describe("sandboxBlockedNote", () => {
    const policy = { network: false, writable: [] };
    const base = { writableRoots: ["/work/repo", "/tmp/north-shell-1"], home: "/home/ann" };

    it("names a write the sandbox refused", () => {
        for (const output of [
            "bash: line 1: /home/ann/.bashrc: Read-only file system\n",
            "npm ERR! code EROFS\n",
            "mv: cannot move '.north' to 'gone': Device or resource busy\n",
            "touch: cannot touch '/usr/local/bin/x': Permission denied\n",
            "cp: cannot create regular file '~/.profile': Permission denied\n",
        ]) {
            expect(sandboxBlockedNote(policy, { ...base, exitCode: 1, output })).toMatch(
                /^The sandbox blocked a write: .*"sandbox": \{ "writable": \["~\/folder"\] \}/
            );
        }
    });

    it("names the network when it is off", () => {
        for (const output of [
            "curl: (6) Could not resolve host: registry.npmjs.org\n",
            "bash: connect: Connection refused\n",
            "npm ERR! errno ENETUNREACH\n",
            "getaddrinfo EAI_AGAIN github.com\n",
        ]) {
            expect(sandboxBlockedNote(policy, { ...base, exitCode: 6, output })).toMatch(
                /^The sandbox blocked network access: .*"sandbox": \{ "network": true \}/
            );
        }
        expect(
            sandboxBlockedNote(
                { network: true, writable: [] },
                { ...base, exitCode: 7, output: "Connection refused\n" }
            )
        ).toBeUndefined();
    });

    it("says nothing for a success or a failure of the command's own", () => {
        const denied = "bash: /work/repo/run.sh: Permission denied\n";
        expect(sandboxBlockedNote(policy, { ...base, exitCode: 126, output: denied })).toBe(
            undefined
        );
        expect(
            sandboxBlockedNote(policy, {
                ...base,
                exitCode: 0,
                output: "x: Read-only file system\n",
            })
        ).toBeUndefined();
        expect(
            sandboxBlockedNote(policy, { ...base, exitCode: 1, output: "FAIL src/a.test.ts\n" })
        ).toBeUndefined();
    });
});

describe("protectedMounts", () => {
    let root: string;
    beforeEach(() => {
        root = realpathSync(mkdtempSync(path.join(tmpdir(), "north-protected-mounts-")));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it("lists the project's protected configuration that exists, and the folders that hold it", () => {
        for (const dir of [".north", ".claude", ".github/workflows", ".vscode", ".git/hooks"]) {
            mkdirSync(path.join(root, dir), { recursive: true });
        }
        for (const file of [
            ".mcp.json",
            ".vscode/tasks.json",
            ".vscode/extensions.json",
            ".git/config",
            ".git/HEAD",
            "app.code-workspace",
            ".envrc",
            "README.md",
        ]) {
            writeFileSync(path.join(root, file), "");
        }
        mkdirSync(path.join(root, ".github/ISSUE_TEMPLATE"));
        expect(protectedMounts(root).sort()).toEqual(
            [
                ".claude",
                ".envrc",
                ".github",
                ".mcp.json",
                ".north",
                ".vscode",
                "app.code-workspace",
            ].map((rel) => path.join(root, rel))
        );
    });

    it("follows a link to its target, and never mounts the project itself read-only", () => {
        const outside = realpathSync(mkdtempSync(path.join(tmpdir(), "north-protected-target-")));
        try {
            symlinkSync(outside, path.join(root, ".north"));
            symlinkSync(".", path.join(root, ".claude"));
            symlinkSync("/", path.join(root, ".devcontainer"));
            expect(protectedMounts(root)).toEqual([outside]);
        } finally {
            rmSync(outside, { recursive: true, force: true });
        }
    });
});
