/**
 * `north acp` as an editor first meets it: initialize negotiates the version
 * and says honestly what North does, authenticate and session/new tell a user
 * without a key what to set, and a new session offers North's modes and model.
 */
import { describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { useAcpTestbed } from "../kit/acp-testbed";

const bed = useAcpTestbed({ "src/app.ts": "export const app = 1;\n" });

/** The environment without any provider key. */
function withoutKeys(): NodeJS.ProcessEnv {
    const { ANTHROPIC_API_KEY: _a, OPENAI_API_KEY: _o, ...rest } = bed.env;
    return rest;
}

describe("initialize", () => {
    it("answers protocol version 1 with what North does and nothing it does not", async () => {
        const acp = await bed.start();
        const answer = await acp.initialize();
        expect(answer.protocolVersion).toBe(PROTOCOL_VERSION);
        expect(answer.agentInfo).toMatchObject({ name: "north" });
        expect(answer.agentInfo?.version).toMatch(/^\d+\.\d+\.\d+/);
        const caps = answer.agentCapabilities!;
        expect(caps.loadSession).toBe(true);
        expect(caps.promptCapabilities).toMatchObject({ image: true, embeddedContext: true });
        expect(caps.promptCapabilities?.audio ?? false).toBe(false);
        expect(caps.mcpCapabilities?.http).toBe(true);
        expect(caps.sessionCapabilities?.list).toBeTruthy();
        expect(caps.sessionCapabilities?.resume).toBeTruthy();
        expect(caps.sessionCapabilities?.close).toBeTruthy();
        // North has no way to delete a conversation, so it must not claim one.
        expect(caps.sessionCapabilities?.delete ?? null).toBeNull();
        // One way in: a key in the environment or the config, named so the user knows what to set.
        expect(answer.authMethods?.length).toBeGreaterThan(0);
        expect(JSON.stringify(answer.authMethods)).toContain("ANTHROPIC_API_KEY");
    });

    it("answers version 1 to a client that asks for a version North does not speak", async () => {
        const acp = await bed.start();
        const answer = await acp.initialize({ protocolVersion: 99 });
        expect(answer.protocolVersion).toBe(1);
    });
});

describe("authenticate", () => {
    it("succeeds when the provider key is in the environment", async () => {
        const acp = await bed.start();
        const init = await acp.initialize();
        const methodId = init.authMethods![0]!.id;
        await expect(acp.agent.request("authenticate", { methodId })).resolves.toBeDefined();
    });

    it("without a key is a JSON-RPC error that says which variable to set, and the process stays up", async () => {
        const acp = await bed.start({ env: withoutKeys() });
        const init = await acp.initialize();
        const methodId = init.authMethods![0]!.id;
        const refused = await acp.agent.request("authenticate", { methodId }).then(
            () => undefined,
            (error: unknown) => error as { code: number; message: string }
        );
        expect(refused?.code).toBe(-32000);
        expect(refused?.message).toContain("ANTHROPIC_API_KEY");

        const noSession = await acp.newSession(bed.repo).then(
            () => undefined,
            (error: unknown) => error as { code: number; message: string }
        );
        expect(noSession?.code).toBe(-32000);
        expect(noSession?.message).toContain("ANTHROPIC_API_KEY");
        // Still serving: a second initialize is answered.
        await expect(acp.initialize()).resolves.toMatchObject({ protocolVersion: 1 });
    });
});

describe("session/new", () => {
    it("opens a session with North's modes and the model as a config option", async () => {
        const acp = await bed.start();
        await acp.initialize();
        const session = await acp.newSession(bed.repo);
        expect(session.sessionId).toMatch(/\S/);
        const modeIds = session.modes!.availableModes.map((m) => m.id);
        expect(modeIds).toEqual(expect.arrayContaining(["ask", "agent", "plan"]));
        expect(session.modes!.currentModeId).toBe("agent");
        const model = session.configOptions?.find((o) => o.category === "model");
        expect(model).toMatchObject({ type: "select", id: expect.any(String) });
        const values = JSON.stringify(model);
        expect(values).toContain("claude-sonnet-4-20250514");
        // Slash commands are advertised once the session exists.
        await acp.waitForUpdate(
            session.sessionId,
            (u) => u.sessionUpdate === "available_commands_update"
        );
    });

    it("opens two sessions side by side with different ids", async () => {
        const acp = await bed.start();
        await acp.initialize();
        const first = await acp.newSession(bed.repo);
        const second = await acp.newSession(bed.repo);
        expect(first.sessionId).not.toBe(second.sessionId);
    });
});
