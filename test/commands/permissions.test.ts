/**
 * `/permissions` through the engine host's ops over a real session: every rule
 * and standing approval with its file (the user's config, the repository's
 * settings, the local file, the personal store, flags, this session), numbered;
 * removing one rewrites only its file (other keys kept) and takes it out of
 * the session at once, so the next such command is asked again.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalRequest, Approver } from "../../src/agent/approvals";
import type { Mode } from "../../src/agent/events";
import { parseCliArgs } from "../../src/cli/args";
import { resolveReadyModel } from "../../src/cli/model-selection";
import { checkSessionFlags, prepareSession } from "../../src/cli/session-setup";
import { type EngineSession, startSession } from "../../src/cli/session-start";
import { answerApprovalsWith } from "../../src/agent/approval-answers";
import { loadUserSettings } from "../../src/storage/settings/load";
import { createCommandRegistryWithAllCommands, runCommandsInInput } from "../../src/commands/index";
import { createPrintApprovalSettings } from "../../src/headless/print-approvals";
import { runPrintCommands } from "../../src/headless/print-commands";
import { createProfileStore } from "../../src/storage/profile";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome } from "../kit/run-north";

let server: FakeLlmServer;
let home: string;
let repo: string;
const handles: EngineSession[] = [];
const asked: string[] = [];

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    const isolated = isolatedHome();
    home = isolated.home;
    repo = realpathSync(mkdtempSync(join(tmpdir(), "north-permissions-")));
    const env = {
        ...isolated.env,
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    };
    for (const [key, value] of Object.entries(env)) vi.stubEnv(key, value);
    asked.length = 0;
});
afterEach(() => {
    for (const handle of handles.splice(0)) handle.close();
    vi.unstubAllEnvs();
    expect(server.remaining()).toBe(0);
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
});

function put(path: string, value: unknown): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(value));
}
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));
const userConfig = () => join(home, "config", "config.json");
const localFile = () => join(repo, ".north", "settings.local.json");
const projectFile = () => join(repo, ".north", "settings.json");
const personalFile = () => join(home, "data", "approvals.json");

/** Every kind of source at once. */
function seed(): void {
    put(userConfig(), { theme: "dark", permissions: { deny: ["Bash(curl:*)"] } });
    put(projectFile(), { permissions: { allow: ["Bash(npm test)"] } });
    put(localFile(), {
        model: "sonnet-4",
        allowedCommands: ["ls"],
        permissions: { allow: ["Bash(make:*)"] },
    });
    put(personalFile(), {
        version: 1,
        projects: {
            [repo]: { allowedCommands: ["npm run build"] },
            "/other": { allowedCommands: ["x"] },
        },
    });
}

/** A trusted session whose approver records and denies what it is asked. */
async function session(
    args: string[] = [],
    printFlags?: Parameters<typeof createPrintApprovalSettings>[0]
): Promise<EngineSession> {
    const parsed = parseCliArgs(["--path", repo, ...args]);
    if (!parsed.ok) throw new Error(parsed.error);
    const prepared = await prepareSession(
        parsed.args,
        () => undefined,
        async () => loadUserSettings
    );
    if (!prepared.ok) throw new Error(prepared.error);
    const approver: Approver = async (request: ApprovalRequest) => {
        asked.push(request.command ?? request.summary);
        return { outcome: "deny", reason: "no" };
    };
    const handle = await startSession(prepared, {
        version: "test",
        frontEnd: "interactive",
        logLevel: "error",
        mode: "agent",
        resolveModel: (name) => resolveReadyModel(prepared.catalogue, name, process.env),
        profiles: createProfileStore(join(home, "data"), prepared.repoRoot),
        approvalSettings: (project) =>
            printFlags ? createPrintApprovalSettings(printFlags, project) : project,
        decideTrust: async () => "trust",
        warn: () => undefined,
    });
    answerApprovalsWith(handle.host, approver);
    handles.push(handle);
    return handle;
}

async function viaPrint(handle: EngineSession, input: string) {
    let stdout = "";
    const outcome = await runPrintCommands(input, {
        host: handle.host,
        format: "text",
        stdout: { write: (text) => void (stdout += text) },
        stderr: { write: (text) => void (stdout += text) },
    });
    return { ...outcome, stdout };
}

/** The chat's commands with a fake picker answering `picks`; `mode` is the chat's mode. */
async function viaChat(handle: EngineSession, input: string, picks: string[], mode: { now: Mode }) {
    const pickers: string[][] = [];
    const { host } = handle;
    await host.submit({ type: "set_mode", mode: mode.now });
    const registry = createCommandRegistryWithAllCommands();
    const { executed } = await runCommandsInInput(input, registry, {
        submit: (op) => host.submit(op),
        state: () => host.state(),
        choose: async (_title, options) => {
            pickers.push(options.map((o) => `${o.id}: ${o.label} [${o.hint}]`));
            return picks.shift() ?? null;
        },
    });
    mode.now = host.state().mode;
    return { results: executed.map((e) => e.result), pickers };
}

/** Runs `command` through the model's shell tool; true when it was asked. */
async function runCommand(handle: EngineSession, command: string): Promise<boolean> {
    const before = asked.length;
    server.enqueue({ toolCalls: [{ name: "shell_run", input: { command } }] }, { text: "ok" });
    await handle.host.submit({ type: "prompt", text: "go", mode: "agent" });
    return asked.length > before;
}

describe("/permissions lists every source", () => {
    it("in print mode: numbered, deny then ask then allow, each with its file", async () => {
        seed();
        const handle = await session(["--allowed-command", "echo:*"]);
        const { stdout } = await viaPrint(handle, "/permissions");
        expect(stdout).toContain(
            [
                "Deny:",
                `  1. Bash(curl:*) - ${userConfig()}`,
                "Allow:",
                `  2. Bash(npm test) - ${projectFile()}`,
                `  3. Bash(make:*) - ${localFile()}`,
                "  4. Bash(echo:*) - --allowed-command",
                `  5. Bash(ls) (exact) - ${localFile()}`,
                `  6. Bash(npm run build) (exact) - ${personalFile()}`,
                "Remove one with /permissions remove <number>.",
            ].join("\n")
        );
        expect(stdout).not.toContain("No permission rules.");
    });

    it("in print mode lists what --allow-shell and --allow-edits grant, never 'No permission rules.'", async () => {
        const handle = await session([], {
            allowShell: true,
            allowEdits: true,
            allowConfigEdits: false,
            allowedCommands: [],
        });
        const { stdout } = await viaPrint(handle, "/permissions");
        expect(stdout).toContain(
            "Allow:\n  1. every command - --allow-shell\n  2. every edit - --allow-edits"
        );
        expect(stdout).not.toContain("No permission rules.");
        expect((await viaPrint(handle, "/permissions remove 1")).stdout).toContain(
            "every command stays: given on the command line (--allow-shell): start North without it."
        );
    });

    it("print mode keeps --allow-edits as its one way to accept edits: accept-edits is refused", async () => {
        const handle = await session();
        const refused = await viaPrint(handle, "/mode accept-edits");
        expect(refused.failed).toBe(true);
        expect(refused.stdout).toContain("in print mode use --allow-edits");
        const args = parseCliArgs(["-p", "--mode", "accept-edits", "hi"]);
        expect(args.ok && checkSessionFlags(args.args)).toEqual({
            ok: false,
            error: "--mode accept-edits is the chat's; in print mode use --allow-edits",
        });
    });
});

describe("/permissions remove", () => {
    it("takes a rule out of settings.local.json, keeping the file's other keys, and the next command is asked", async () => {
        seed();
        const handle = await session();
        expect(await runCommand(handle, "make build")).toBe(false);
        const { stdout, failed } = await viaPrint(handle, '/permissions remove "Bash(make:*)"');
        expect(failed).toBe(false);
        expect(stdout).toContain(`Removed Bash(make:*). Removed from ${localFile()}.`);
        expect(readJson(localFile())).toEqual({
            model: "sonnet-4",
            allowedCommands: ["ls"],
            permissions: { allow: [] },
        });
        expect(await runCommand(handle, "make build")).toBe(true);
    });

    it("takes an exact command out of the personal store, keeping other projects, and it is asked again", async () => {
        seed();
        const handle = await session();
        expect(await runCommand(handle, "npm run build")).toBe(false);
        await viaPrint(handle, "/permissions remove 5");
        expect(readJson(personalFile())).toEqual({
            version: 1,
            projects: { [repo]: { allowedCommands: [] }, "/other": { allowedCommands: ["x"] } },
        });
        expect(await runCommand(handle, "npm run build")).toBe(true);
    });

    it("takes a deny rule out of the user's config.json, keeping its other keys", async () => {
        seed();
        const handle = await session();
        await viaPrint(handle, "/permissions remove 1");
        expect(readJson(userConfig())).toEqual({ theme: "dark", permissions: { deny: [] } });
        expect((await viaPrint(handle, "/permissions")).stdout).not.toContain("Bash(curl:*)");
    });

    it("leaves the repository's settings.json and flags alone and says why", async () => {
        seed();
        const before = readFileSync(projectFile(), "utf8");
        const handle = await session(["--allowed-command", "echo:*"]);
        const repoRule = await viaPrint(handle, "/permissions remove 2");
        expect(repoRule.failed).toBe(true);
        expect(repoRule.stdout).toContain(
            "Bash(npm test) stays: .north/settings.json belongs to the repository (it may be committed): edit it to remove this."
        );
        expect(readFileSync(projectFile(), "utf8")).toBe(before);
        const flag = await viaPrint(handle, "/permissions remove 4");
        expect(flag.stdout).toContain("given on the command line (--allowed-command)");
        expect((await viaPrint(handle, "/permissions remove 9")).stdout).toContain(
            "There is no entry 9."
        );
    });
});

describe("/permissions in the chat", () => {
    it("is a picker: choosing an entry removes it at once; a repository file's says why", async () => {
        seed();
        const handle = await session();
        const mode = { now: "agent" as Mode };
        const chosen = await viaChat(handle, "/permissions", ["5"], mode);
        expect(chosen.pickers[0]).toEqual([
            `1: deny Bash(curl:*) - ${userConfig()} [Enter removes it]`,
            `2: allow Bash(npm test) - ${projectFile()} [.north/settings.json belongs to the repository (it may be committed): edit it to remove this]`,
            `3: allow Bash(make:*) - ${localFile()} [Enter removes it]`,
            `4: allow Bash(ls) (exact) - ${localFile()} [Enter removes it]`,
            `5: allow Bash(npm run build) (exact) - ${personalFile()} [Enter removes it]`,
        ]);
        expect(chosen.results[0]!.message).toBe(
            `Removed Bash(npm run build). Removed from ${personalFile()}.`
        );
        expect(await runCommand(handle, "npm run build")).toBe(true);
    });

    it("lists the accept-edits mode, never 'No permission rules.' while it is on, and switches it off", async () => {
        const handle = await session();
        const mode = { now: "accept-edits" as Mode };
        const listed = await viaChat(handle, "/permissions", [], mode);
        expect(listed.pickers[0]).toEqual([
            "mode: mode: accept edits on (every edit without review) - this session [Enter switches back to agent]",
        ]);
        expect(listed.results[0]!.message).not.toContain("No permission rules.");
        expect(listed.results[0]!.message).toContain("Mode: accept edits on");
        const off = await viaChat(handle, "/permissions", ["mode"], mode);
        expect(off.results[0]!.message).toBe("Mode: agent. Edits are reviewed again.");
        expect(mode.now).toBe("agent");
        expect((await viaChat(handle, "/permissions", [], mode)).results[0]!.message).toContain(
            "No permission rules."
        );
    });
});
