/**
 * web_fetch under the approval flow of shell commands: a `WebFetch(domain:…)`
 * deny wins over every approval, an allow rule fetches unasked, "always"
 * allows the host for the session only, and auto-approval of commands covers it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type {
    ApprovalDecision,
    ApprovalRequest,
    ApprovalSettings,
    Approver,
} from "../../src/agent/approvals";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import { executeToolCall } from "../../src/agent/tool-executor";
import { createPrintApprovalSettings, printModeApprover } from "../../src/headless/print-approvals";
import type { ToolCallBlock } from "../../src/providers/types";
import { silentLogger } from "../../src/storage/logger";
import { PermissionRules, parseRule } from "../../src/tools/permissions/rules";
import { createToolRegistry } from "../../src/tools/registry";
import type { AnyToolDefinition, ToolResult } from "../../src/tools/types";
import { createWebFetchTool } from "../../src/tools/web-fetch";

let server: http.Server;
let port: number;
let hits: number;
beforeEach(async () => {
    hits = 0;
    server = http.createServer((_req, res) => {
        hits++;
        res.writeHead(200, { "content-type": "text/plain" }).end("hello from the web");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
});
afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
});

const KNOWN = new Set(["Bash", "shell_run", "web_fetch", "WebFetch"]);

function rulesOf(permissions: { allow?: string[]; deny?: string[]; ask?: string[] }) {
    const rules = new PermissionRules({ projectRoot: "/repo", home: "/home" }, KNOWN);
    expect(rules.addSource({ source: "settings.json", permissions })).toEqual([]);
    return rules;
}

function approverAnswering(decision: ApprovalDecision): Approver & { asked: ApprovalRequest[] } {
    const asked: ApprovalRequest[] = [];
    const approver: Approver = async (request) => {
        asked.push(request);
        return decision;
    };
    return Object.assign(approver, { asked });
}

let callId = 0;
function fetchCall(
    url: string,
    approver: Approver,
    settings: ApprovalSettings
): Promise<ToolResult> {
    const tools = createToolRegistry([
        createWebFetchTool({ allowPrivateNetwork: true }) as AnyToolDefinition,
    ]);
    const block: ToolCallBlock = {
        type: "tool_call",
        id: `w${++callId}`,
        name: "web_fetch",
        input: { url },
        rawInput: JSON.stringify({ url }),
    };
    return executeToolCall(block, new Set(["web_fetch"]), new AbortController().signal, {
        tools,
        repoRoot: "/repo",
        logger: silentLogger,
        emit: () => {},
        approver,
        settings,
    });
}

const url = () => `http://127.0.0.1:${port}/docs`;
const settingsWith = (rules: PermissionRules, extra: Partial<ApprovalSettings> = {}) => ({
    ...createNoStandingApprovals(),
    permissionRules: rules,
    ...extra,
});

describe("WebFetch rules", () => {
    it("parse as Claude Code writes them and cover subdomains", () => {
        const bases = { projectRoot: "/repo", home: "/home" };
        expect(parseRule("WebFetch(domain:Docs.Example.com)", bases, KNOWN)).toEqual({
            target: { type: "domain", domain: "docs.example.com" },
        });
        expect(parseRule("WebFetch(domain:*.example.com)", bases, KNOWN)).toEqual({
            target: { type: "domain", domain: "example.com" },
        });
        expect(parseRule("WebFetch", bases, KNOWN)).toEqual({
            target: { type: "tool", name: "WebFetch" },
        });
        for (const bad of ["WebFetch(example.com)", "WebFetch(domain:)", "WebFetch(domain:a b)"]) {
            expect(parseRule(bad, bases, KNOWN), bad).toEqual({
                error: `"${bad}": write WebFetch(domain:example.com)`,
            });
        }
        const rules = rulesOf({
            allow: ["WebFetch(domain:example.com)"],
            deny: ["WebFetch(domain:bad.example.com)"],
        });
        expect(rules.forDomain("example.com")?.decision).toBe("allow");
        expect(rules.forDomain("docs.example.com")?.decision).toBe("allow");
        expect(rules.forDomain("bad.example.com")?.decision).toBe("deny");
        expect(rules.forDomain("x.bad.example.com")?.decision).toBe("deny");
        expect(rules.forDomain("notexample.com")).toBeUndefined();
    });
});

describe("web_fetch approvals", () => {
    it("asks with the URL and its host; once fetches and asks again next time", async () => {
        const approver = approverAnswering({ outcome: "approve" });
        const settings = settingsWith(rulesOf({}));
        const first = await fetchCall(url(), approver, settings);
        expect(first.ok && (first.data as { content: string }).content).toBe("hello from the web");
        await fetchCall(url(), approver, settings);
        expect(approver.asked).toHaveLength(2);
        expect(approver.asked[0]).toMatchObject({
            kind: "shell",
            summary: url(),
            domain: "127.0.0.1",
        });
        expect(approver.asked[0]!.command).toBeUndefined();
    });

    it("'always' allows the host for this session as a rule, not a saved command", async () => {
        const approver = approverAnswering({ outcome: "approve", remember: "exact" });
        const saved: string[] = [];
        const rules = rulesOf({});
        const settings = settingsWith(rules, { allowCommand: (c) => void saved.push(c) });
        await fetchCall(url(), approver, settings);
        await fetchCall(`http://127.0.0.1:${port}/other`, approver, settings);
        expect(approver.asked).toHaveLength(1);
        expect(hits).toBe(2);
        expect(saved).toEqual([]);
        expect(rules.list().map((r) => [r.kind, r.text, r.source])).toEqual([
            ["allow", "WebFetch(domain:127.0.0.1)", "this session"],
        ]);
        const elsewhere = await fetchCall(`http://localhost:${port}/x`, approver, settings);
        expect(elsewhere.ok).toBe(true);
        expect(approver.asked).toHaveLength(2);
    });

    it("a domain deny wins over auto-approval and an allow of the tool, unasked", async () => {
        const approver = approverAnswering({ outcome: "approve" });
        const settings = settingsWith(
            rulesOf({ allow: ["WebFetch"], deny: ["WebFetch(domain:127.0.0.1)"] }),
            { isShellAutoApproved: () => true }
        );
        const result = await fetchCall(url(), approver, settings);
        expect(result).toEqual({
            ok: false,
            error: {
                code: "denied",
                message: `fetching ${url()} is denied by the permission rule WebFetch(domain:127.0.0.1) (settings.json); do not try to get around it: tell the user what you wanted to do and why`,
            },
        });
        expect(approver.asked).toEqual([]);
        expect(hits).toBe(0);
    });

    it("an allow rule and command auto-approval fetch unasked; an ask rule asks under auto", async () => {
        const approver = approverAnswering({ outcome: "deny" });
        const allowed = await fetchCall(
            url(),
            approver,
            settingsWith(rulesOf({ allow: ["WebFetch(domain:127.0.0.1)"] }))
        );
        expect(allowed.ok).toBe(true);
        const auto = await fetchCall(
            url(),
            approver,
            settingsWith(rulesOf({}), { isShellAutoApproved: () => true })
        );
        expect(auto.ok).toBe(true);
        expect(approver.asked).toEqual([]);
        const asked = await fetchCall(
            url(),
            approver,
            settingsWith(rulesOf({ ask: ["WebFetch(domain:127.0.0.1)"] }), {
                isShellAutoApproved: () => true,
            })
        );
        expect(asked.ok).toBe(false);
        expect(approver.asked[0]?.askRule).toBe("WebFetch(domain:127.0.0.1) (settings.json)");
        expect(hits).toBe(2);
    });

    it("print mode refuses unless a rule or --allow-shell allows it, and says how", async () => {
        const flags = { allowEdits: false, allowConfigEdits: false, allowedCommands: [] };
        const project = settingsWith(rulesOf({}));
        const refused = await fetchCall(
            url(),
            printModeApprover,
            createPrintApprovalSettings({ ...flags, allowShell: false }, project)
        );
        expect(refused.ok).toBe(false);
        expect(JSON.stringify(refused)).toContain(
            "so http://127.0.0.1:" +
                port +
                '/docs was not fetched. The user can allow the site with the rule \\"WebFetch(domain:127.0.0.1)\\" in permissions.allow, or allow every command and fetch with --allow-shell'
        );
        const allowed = await fetchCall(
            url(),
            printModeApprover,
            createPrintApprovalSettings({ ...flags, allowShell: true }, project)
        );
        expect(allowed.ok).toBe(true);
        expect(hits).toBe(1);
    });
});
