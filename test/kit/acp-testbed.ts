/**
 * The set-up every `north acp` test shares, as vitest hooks: a fresh fake
 * Anthropic server (turns a failed test left unserved cannot leak into the
 * next), a project folder, an isolated HOME; after the test every client
 * started is closed (its protocol failures fail the test), everything is
 * removed, and every scripted turn must have been served.
 *
 *     const bed = useAcpTestbed({ "src/app.ts": "…" });
 *     it("…", async () => {
 *         bed.server.enqueue({ text: "Hi." });
 *         const { acp, sessionId } = await bed.session();
 *         …
 *     });
 */
import { rmSync } from "node:fs";
import { afterEach, beforeEach } from "vitest";
import {
    type AcpClient,
    type AcpClientOptions,
    acpEnv,
    startAcpClient,
    tempRepo,
} from "./acp-client";
import { type FakeLlmServer, startFakeLlmServer } from "./fake-llm-server";

export interface AcpTestbed {
    readonly server: FakeLlmServer;
    readonly repo: string;
    readonly home: string;
    readonly env: NodeJS.ProcessEnv;
    /** Starts `north acp` in the project (closed after the test). */
    start(options?: Partial<AcpClientOptions>): Promise<AcpClient>;
    /** start + initialize + session/new in the project. */
    session(options?: Partial<AcpClientOptions>): Promise<{ acp: AcpClient; sessionId: string }>;
}

export function useAcpTestbed(files: Record<string, string>): AcpTestbed {
    let current:
        { server: FakeLlmServer; repo: string; home: string; env: NodeJS.ProcessEnv } | undefined;
    const clients: AcpClient[] = [];
    const now = () => {
        if (!current) throw new Error("the ACP testbed is only there inside a test");
        return current;
    };

    beforeEach(async () => {
        const server = await startFakeLlmServer();
        const repo = tempRepo(files);
        const { home, env } = acpEnv(server.anthropicBaseUrl);
        current = { server, repo, home, env };
    });
    afterEach(async () => {
        const { server, repo, home } = now();
        const unserved = server.remaining();
        try {
            for (const client of clients.splice(0)) await client.close();
        } finally {
            current = undefined;
            await server.close();
            rmSync(repo, { recursive: true, force: true });
            rmSync(home, { recursive: true, force: true });
        }
        if (unserved > 0)
            throw new Error(`${unserved} scripted model turn(s) were never asked for`);
    });

    const bed: AcpTestbed = {
        get server() {
            return now().server;
        },
        get repo() {
            return now().repo;
        },
        get home() {
            return now().home;
        },
        get env() {
            return now().env;
        },
        async start(options = {}) {
            const client = await startAcpClient({ env: now().env, cwd: now().repo, ...options });
            clients.push(client);
            return client;
        },
        async session(options = {}) {
            const acp = await bed.start(options);
            await acp.initialize();
            const { sessionId } = await acp.newSession(now().repo);
            return { acp, sessionId };
        },
    };
    return bed;
}
