/**
 * web_fetch end to end in print mode: the model's call reaches a local web
 * server only with the user's `webFetch.allowPrivateNetwork` and an allowance
 * (--allow-shell or a WebFetch rule); a project cannot open the private network.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

let llm: FakeLlmServer;
let web: http.Server;
let pageUrl: string;
let webHits: number;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    llm = await startFakeLlmServer();
    web = http.createServer((req, res) => {
        webHits++;
        if (req.url === "/moved") {
            const port = (web.address() as AddressInfo).port;
            res.writeHead(302, { location: `http://localhost:${port}/notes` }).end();
            return;
        }
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end("<html><body><h2>Release notes</h2><p>North <b>1.2</b> is out.</p></body></html>");
    });
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    pageUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}/notes`;
});
afterAll(async () => {
    await llm.close();
    web.closeAllConnections();
    await new Promise((resolve) => web.close(resolve));
});
beforeEach(() => {
    webHits = 0;
    repo = mkdtempSync(join(tmpdir(), "north-web-repo-"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: llm.anthropicBaseUrl };
    llm.requests.length = 0;
});
afterEach(() => {
    expect(llm.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

function userConfig(config: Record<string, unknown>): void {
    mkdirSync(join(home, "config"), { recursive: true });
    writeFileSync(join(home, "config", "config.json"), JSON.stringify(config));
}

const fetchTurn = () => ({ toolCalls: [{ name: "web_fetch", input: { url: pageUrl } }] });
const lastRequest = () => JSON.stringify(llm.requests.at(-1)!.body);
const json = (line: string) => JSON.parse(line) as Record<string, unknown>;

describe("web_fetch in print mode", () => {
    it("fetches a page as Markdown with --allow-shell and the user's private-network setting", async () => {
        userConfig({ webFetch: { allowPrivateNetwork: true } });
        llm.enqueue(fetchTurn(), { text: "North 1.2 is out." });
        const run = await runNorth(
            [
                "-p",
                "what is new?",
                "--path",
                repo,
                "--allow-shell",
                "--output-format",
                "stream-json",
            ],
            { env }
        );
        expect(run.code).toBe(0);
        const lines = run.stdout.trim().split("\n").map(json);
        expect(lines.find((l) => l.type === "tool_call")).toMatchObject({
            name: "web_fetch",
            input: { url: pageUrl },
        });
        const result = lines.find((l) => l.type === "tool_result")!;
        expect(result.ok).toBe(true);
        expect(String(result.content)).toContain("## Release notes");
        expect(String(result.content)).toContain("North **1.2** is out.");
        expect(lastRequest()).toContain("## Release notes");
        expect(webHits).toBe(1);
    });

    it("is refused without an allowance, telling the model how the user can allow it", async () => {
        userConfig({ webFetch: { allowPrivateNetwork: true } });
        llm.enqueue(fetchTurn(), { text: "I could not fetch it." });
        const run = await runNorth(["-p", "what is new?", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(lastRequest()).toContain("print mode cannot ask before fetching from the web");
        expect(lastRequest()).toContain("WebFetch(domain:127.0.0.1)");
        expect(webHits).toBe(0);
    });

    it("runs under a WebFetch allow rule, and a deny rule wins over --allow-shell", async () => {
        userConfig({
            webFetch: { allowPrivateNetwork: true },
            permissions: { allow: ["WebFetch(domain:127.0.0.1)"] },
        });
        llm.enqueue(fetchTurn(), { text: "ok" });
        await runNorth(["-p", "x", "--path", repo], { env });
        expect(lastRequest()).toContain("Release notes");
        expect(webHits).toBe(1);

        userConfig({
            webFetch: { allowPrivateNetwork: true },
            permissions: { deny: ["WebFetch(domain:127.0.0.1)"] },
        });
        llm.enqueue(fetchTurn(), { text: "denied" });
        await runNorth(["-p", "x", "--path", repo, "--allow-shell"], { env });
        expect(lastRequest()).toContain(
            "is denied by the permission rule WebFetch(domain:127.0.0.1)"
        );
        expect(webHits).toBe(1);
    });

    it("does not follow a redirect past the allowed domain; fetching the new host needs its own allowance", async () => {
        userConfig({
            webFetch: { allowPrivateNetwork: true },
            permissions: { allow: ["WebFetch(domain:127.0.0.1)"] },
        });
        const moved = pageUrl.replace("/notes", "/moved");
        const elsewhere = pageUrl.replace("127.0.0.1", "localhost");
        llm.enqueue(
            { toolCalls: [{ name: "web_fetch", input: { url: moved } }] },
            {
                when: (body) => body.includes(`to another host: ${elsewhere}`),
                toolCalls: [{ name: "web_fetch", input: { url: elsewhere } }],
            },
            { text: "It moved." }
        );
        const run = await runNorth(["-p", "x", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(lastRequest()).toContain("print mode cannot ask before fetching from the web");
        expect(lastRequest()).toContain("WebFetch(domain:localhost)");
        expect(lastRequest()).not.toContain("Release notes");
        // Only the redirect itself was served.
        expect(webHits).toBe(1);
    });

    it("refuses loopback addresses by default, and a trusted project cannot allow them", async () => {
        mkdirSync(join(repo, ".north"), { recursive: true });
        writeFileSync(
            join(repo, ".north", "settings.json"),
            JSON.stringify({ webFetch: { allowPrivateNetwork: true } })
        );
        llm.enqueue(fetchTurn(), { text: "refused" });
        const run = await runNorth(["-p", "x", "--path", repo, "--allow-shell", "--trust"], {
            env,
        });
        expect(run.stderr).toContain('"webFetch" is a user setting');
        expect(lastRequest()).toContain("127.0.0.1 is a loopback address");
        expect(webHits).toBe(0);
    });
});
